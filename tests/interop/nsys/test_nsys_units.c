/*
 * test_nsys_units.c — the pieces of the nsys mapping on their own: serialized ids, enum
 * mappings both ways, CUDA API names by CUPTI id and back, kernel short names.
 */
#include "../../ss_test.h"
#include "interop/ssi_nsys.h"
#include "util/ss_cxxname.h"
#include "trace/sst_cbid.h"

static void ids(void)
{
    int64_t g = ssi_nsys_gtid(4242, 4250);
    CHECK_EQ(g, (4242ll << 24) | 4250);
    CHECK_EQ((g >> 24) & 0xFFFFFF, 4242); /* nsys's own decoding */
    CHECK_EQ(g & 0xFFFFFF, 4250);
    CHECK_EQ(ssi_nsys_gpid(4242), g & (int64_t)0xFFFFFFFFFF000000ll);
    CHECK_EQ(ssi_nsys_pid_of(g), 4242);
    CHECK_EQ(ssi_nsys_tid_of(g), 4250);
    CHECK_EQ(ssi_nsys_tid_of(ssi_nsys_gtid(1, 0x1234567)), 0x234567); /* cut to 24 bits */
}

static void enums(void)
{
    CHECK_EQ(ssi_nsys_copy_from_sst(SST_COPY_H2D), 1);
    CHECK_EQ(ssi_nsys_copy_from_sst(SST_COPY_D2H), 2);
    CHECK_EQ(ssi_nsys_copy_from_sst(SST_COPY_D2D), 8);
    CHECK_EQ(ssi_nsys_copy_from_sst(SST_COPY_P2P), 10);
    for (uint8_t k = 0; k <= SST_COPY_OTHER; k++) /* every trace kind comes back */
        CHECK_EQ(ssi_nsys_copy_to_sst(ssi_nsys_copy_from_sst(k)), k);
    CHECK_EQ(ssi_nsys_copy_to_sst(6), SST_COPY_OTHER);  /* ATOD */
    CHECK_EQ(ssi_nsys_copy_to_sst(12), SST_COPY_OTHER); /* unified memory DtoH */
    CHECK_EQ(ssi_nsys_copy_to_sst(99), SST_COPY_UNKNOWN);
    CHECK_EQ(ssi_nsys_mem_from_sst(SST_MEM_PAGEABLE), 0);
    CHECK_EQ(ssi_nsys_mem_from_sst(SST_MEM_PINNED), 1);
    CHECK_EQ(ssi_nsys_mem_from_sst(SST_MEM_DEVICE), 2);
    CHECK_EQ(ssi_nsys_mem_from_sst(SST_MEM_UNKNOWN), 7);
    for (uint8_t k = 0; k <= SST_MEM_MANAGED_STATIC; k++)
        CHECK_EQ(ssi_nsys_mem_to_sst(ssi_nsys_mem_from_sst(k)), k);
    CHECK_EQ(ssi_nsys_mem_to_sst(-3), SST_MEM_UNKNOWN);
    /* the enum rows written agree with the mapping */
    int found = 0;
    for (size_t i = 0; i < ssi_nsys_n_enum_rows; i++) {
        const struct ssi_nsys_enum_row *e = &ssi_nsys_enum_rows[i];
        if (strcmp(e->table, "ENUM_CUDA_MEM_KIND") == 0 && e->id == 0) {
            CHECK_STR(e->label, "Pageable");
            found++;
        }
        if (strcmp(e->table, "ENUM_CUDA_MEMCPY_OPER") == 0 && e->id == 8) {
            CHECK_STR(e->label, "Device-to-Device");
            found++;
        }
    }
    CHECK_EQ(found, 2);
}

static void api_names(void)
{
    char buf[48];
    CHECK_STR(ssi_nsys_api_name(SST_API_RUNTIME, 211, buf, sizeof buf), "cudaLaunchKernel_v7000");
    CHECK_STR(ssi_nsys_api_name(SST_API_RUNTIME, 41, buf, sizeof buf), "cudaMemcpyAsync_v3020");
    CHECK_STR(ssi_nsys_api_name(SST_API_DRIVER, 307, buf, sizeof buf), "cuLaunchKernel");
    CHECK_STR(ssi_nsys_api_name(SST_API_RUNTIME, 100000, buf, sizeof buf),
              "cudaUnknown_cbid100000");
    uint8_t d;
    uint32_t cbid;
    CHECK(ssi_nsys_api_from_name("cudaLaunchKernel_v7000", SST_API_RUNTIME, &d, &cbid));
    CHECK_EQ(d, SST_API_RUNTIME);
    CHECK_EQ(cbid, 211);
    CHECK(ssi_nsys_api_from_name("cudaLaunchKernel", SST_API_RUNTIME, &d, &cbid)); /* no suffix */
    CHECK_EQ(cbid, 211);
    CHECK(ssi_nsys_api_from_name("cuLaunchKernel", SST_API_DRIVER, &d, &cbid));
    CHECK_EQ(d, SST_API_DRIVER);
    CHECK_EQ(cbid, 307);
    CHECK(ssi_nsys_api_from_name("cudaUnknown_cbid100000", SST_API_RUNTIME, &d, &cbid));
    CHECK_EQ(cbid, 100000);
    CHECK(!ssi_nsys_api_from_name("fopen", SST_API_RUNTIME, &d, &cbid));
    CHECK(!ssi_nsys_api_from_name("cudaUnknown_cbid", SST_API_RUNTIME, &d, &cbid));
    /* every id of both tables maps back to itself */
    for (uint8_t dom = SST_API_RUNTIME; dom <= SST_API_DRIVER; dom++)
        for (uint32_t i = 0; i < sst_cbid_count(dom); i++) {
            const char *n = sst_cbid_name(dom, i);
            if (!n) continue;
            if (!ssi_nsys_api_from_name(n, dom, &d, &cbid) || d != dom || cbid != i)
                SS_FAIL_AT("%s does not map back to %u/%u", n, (unsigned)dom, (unsigned)i);
        }
}

static void short_name(const char *demangled, const char *want)
{
    char out[256];
    ss_name_bare(demangled, strlen(demangled), out, sizeof out);
    CHECK_STR(out, want);
}

static void kernel_names(void)
{
    short_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
               "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
               "at::detail::Array<char*, 1>)",
               "vectorized_elementwise_kernel");
    short_name("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel"
               "<float, 4>(long, at::PhiloxCudaState)",
               "distribution_elementwise_grid_stride_kernel");
    short_name("sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw",
               "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw");
    short_name("triton_poi_fused_add_0", "triton_poi_fused_add_0");
    short_name("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>"
               "(cudnnTensorStruct, float const*)",
               "bn_fw_tr_1C11_kernel_NCHW");
    short_name("", "");
    const char *m = "_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_21CUDAFunctorOnSelf_"
                    "addIlEESt5arrayIPcLm2EEEEviT0_T1_";
    char *d = ss_demangle(m, strlen(m));
    REQUIRE(d != NULL);
    CHECK_CONTAINS(d, "void at::native::vectorized_elementwise_kernel<2, ");
    char out[128];
    ss_name_bare(d, strlen(d), out, sizeof out);
    CHECK_STR(out, "vectorized_elementwise_kernel");
    free(d);
    CHECK(ss_demangle("triton_poi_fused_add_0", 22) == NULL);
    CHECK(ss_demangle("_Zzzz", 5) == NULL); /* not a valid mangling */
    char huge[9000];
    memset(huge, 'A', sizeof huge);
    huge[0] = '_', huge[1] = 'Z';
    CHECK(ss_demangle(huge, sizeof huge) == NULL); /* past the bound: kept mangled */
}

int main(void)
{
    ids();
    enums();
    api_names();
    kernel_names();
    return ss_test_result();
}
