/*
 * torch_cabi.h — the part of libtorch's C ABI that train_cabi.c uses, declared for C.
 *
 * libtorch exports these symbols with C linkage, but its own headers
 * (torch/csrc/inductor/aoti_torch/c/shim.h, .../generated/c_shim_aten.h,
 * torch/csrc/stable/c/shim.h) are C++ only (`using`, classes). The prototypes below are copied
 * by hand from those headers of torch 2.11.0; torch_call_dispatcher needs torch >= 2.10.
 *
 * Conventions of the ABI (read off torch/csrc/stable/stableivalue_conversions.h):
 *   - every call returns AOTITorchError: 0 on success; on failure libtorch prints the C++
 *     exception's message on stderr and returns non-zero;
 *   - a function that returns a tensor through AtenTensorHandle* hands over a new reference,
 *     which the caller releases with aoti_torch_delete_tensor_object;
 *   - torch_call_dispatcher takes a stack of StableIValue (uint64_t), one per schema argument in
 *     order, and overwrites it with the returns (ret0 at index 0). A tensor argument is a handle
 *     the dispatcher takes ownership of (pass a fresh reference from
 *     aoti_torch_new_tensor_handle); a returned tensor is a new reference. int/bool/double go in
 *     as their bytes (little endian), a ScalarType as the int32 code from aoti_torch_dtype_*(),
 *     a None optional as 0. Scalar arguments (e.g. add's alpha) cannot be passed: use the
 *     generated shims that take double (aoti_torch_aten_*, aoti_torch_cpu_*, aoti_torch_cuda_*).
 */
#ifndef STEPSCOPE_TORCH_CABI_H
#define STEPSCOPE_TORCH_CABI_H

#include <stdint.h>

typedef struct AtenTensorOpaque *AtenTensorHandle;
typedef int32_t AOTITorchError;
typedef uint64_t StableIValue;

#define AOTI_TORCH_SUCCESS 0

/* TORCH_ABI_VERSION of the headers these prototypes come from (torch/headeronly/version.h):
 * [major][minor][patch][abi tag x5] in bytes. Tells torch_call_dispatcher which calling
 * convention the caller was written for. */
#define TORCH_CABI_VERSION_2_11_0 ((2ULL << 56) | (11ULL << 48) | (0ULL << 40))

/* ---- torch/csrc/inductor/aoti_torch/c/shim.h ---- */
int32_t aoti_torch_device_type_cpu(void);
int32_t aoti_torch_device_type_cuda(void);
int32_t aoti_torch_dtype_float32(void);
int32_t aoti_torch_dtype_bfloat16(void);

AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);
AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                            AtenTensorHandle *new_handle);
AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor, void **ret_data_ptr);
AOTITorchError aoti_torch_item_float32(AtenTensorHandle tensor, float *ret_value);
AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr,
                                        const int64_t *strides_ptr, int32_t dtype,
                                        int32_t device_type, int32_t device_index,
                                        AtenTensorHandle *ret_new_tensor);
AOTITorchError aoti_torch_empty_strided_pinned(int64_t ndim, const int64_t *sizes_ptr,
                                               const int64_t *strides_ptr, int32_t dtype,
                                               int32_t device_type, int32_t device_index,
                                               AtenTensorHandle *ret_new_tensor);
AOTITorchError aoti_torch_create_tensor_from_blob(void *data, int64_t ndim,
                                                  const int64_t *sizes_ptr,
                                                  const int64_t *strides_ptr,
                                                  int64_t storage_offset, int32_t dtype,
                                                  int32_t device_type, int32_t device_index,
                                                  AtenTensorHandle *ret);
AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                int32_t non_blocking);
AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle *ret);

/* ---- torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h (any device) ---- */
AOTITorchError aoti_torch_aten_fill__Scalar(AtenTensorHandle self, double value);
AOTITorchError aoti_torch_aten_subtract_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                               double alpha, AtenTensorHandle *ret0);

/* ---- torch/csrc/stable/c/shim.h (torch >= 2.10) ---- */
AOTITorchError torch_call_dispatcher(const char *op_name, const char *overload_name,
                                     StableIValue *stack, uint64_t extension_build_version);

#endif /* STEPSCOPE_TORCH_CABI_H */
