/*
 * test_kernel_class.c — the kernel-class table against real kernel names, and the API
 * table against the CUPTI callback ids it must know.
 *
 * real_names: every distinct kernel name in the H200 fixtures (tests/fixtures/h200-*.sstrace:
 * cuBLASLt nvjet_*, cuDNN sm90/sm80 xmma, cutlass, cuDNN legacy engines, at::native), each
 * with the class a person reviewing the name would give it. other_names: families the
 * fixtures do not have (NCCL, FlashAttention, fused optimizers, Triton, Ampere cuBLAS).
 */
#include "analysis/ssa.h"
#include "ss_test.h"
#include "trace/sst_format.h"

struct named {
    const char *name;
    enum ssa_kclass kc;
};

static const struct named real_names[] = {
    {"_Z11scal_kernelIffLi1ELb1ELi6ELi5ELi5ELi3EEv21cublasTransposeParamsIT0_EPKT_PS3_PKS1_",
     SSA_KC_ELEMENTWISE},
    {"_Z17wgrad_alg0_engineIfLi128ELi5ELi5ELi3ELi3ELi3ELb0ELi512EEviiiPKT_iPS0_S2_18kernel_grad_paramsyifiiii",
     SSA_KC_GEMM_FP32},
    {"_Z18sgemm_largek_lds64ILb1ELb0ELi5ELi5ELi4ELi4ELi4ELi34EEvPfPKfS2_iiiiiiS2_S2_ffiiPiS3_",
     SSA_KC_GEMM_FP32},
    {"_Z20nhwcAddPaddingKernelI13__nv_bfloat16S0_fLb1EL21cudnnKernelDataType_t0EEviiiiiiiiPKT_PT0_iiiiT1_S7_N5cudnn15reduced_divisorES9_S9_",
     SSA_KC_ELEMENTWISE},
    {"_Z23implicit_convolve_sgemmIffLi1024ELi5ELi5ELi3ELi3ELi3ELi1ELb0ELb0ELb1EEviiiPKT_iPT0_S2_18kernel_conv_paramsyiffiPKS3_S7_bbii",
     SSA_KC_GEMM_FP32},
    {"_Z26precomputed_convolve_sgemmI13__nv_bfloat16Li128ELi6ELi7ELi3ELi3ELi5ELi1ELb0EEviiiPKT_iPS1_S3_18kernel_conv_paramsyiffibbS3_S3_Pi",
     SSA_KC_GEMM_FP32},
    {"_ZN17cutlass__5x_cudnn6KernelI73cutlass_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8EEvNT_6ParamsE",
     SSA_KC_GEMM_TC},
    {"_ZN17cutlass__5x_cudnn6KernelI79cutlass_tensorop_s1688dgrad_optimized_tf32_256x64_16x4_nhwc_unity_stride_align4EEvNT_6ParamsE",
     SSA_KC_GEMM_FP32},
    {"_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi64ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIteratorOptimizedINS_11MatrixShapeILi64ELi32EEENS_10bfloat16_tENS_9transform29PitchLinearWarpRakedThreadMapINS_16PitchLinearShapeILi64ELi32EEELi128ENSF_ILi8ELi4EEELi8EEENS_12AlignedArrayISC_Li8ELi16EEEEENSD_11threadblock25RegularTileAccessIteratorISB_SC_NS_6layout40ColumnMajorTensorOpMultiplicandCongruousILi16ELi64EEELi1ESI_Li16EEELNS_4arch14CacheOperation4KindE0ENS4_48Conv2dWgradActivationTileAccessIteratorOptimizedINSA_ILi32ELi128EEESC_NSE_INSF_ILi128ELi32EEELi128ESH_Li8EEESK_EENSN_ISW_SC_NSO_37RowMajorTensorOpMultiplicandCongruousILi16ELi64EEELi0ESY_Li16EEELSU_0ENS6_11threadblock9MmaPolicyINS6_4warp11MmaTensorOpINS7_ILi32ELi64ELi32EEESC_SQ_SC_S11_fNSO_8RowMajorENS15_17MmaTensorOpPolicyINSS_3MmaINS7_ILi16ELi8ELi16EEELi32ESC_S18_SC_NSO_11ColumnMajorEfS18_NSS_13OpMultiplyAddEEENSA_ILi1ELi1EEEEELi1ELb0EbEENSA_ILi0ELi0EEES1I_Li1EEELi6EbEENS_8epilogue11threadblock8EpilogueIS8_S1H_Li1ENS1M_22PredicatedTileIteratorINS1M_26OutputTileOptimalThreadMapINS1M_15OutputTileShapeILi128ELi8ELi2ELi1ELi1EEENS1Q_ILi1ELi4ELi1ELi1ELi4EEELi128ELi4ELi32EEEfLb0ENSO_9NoPermuteELb0EEENS1L_4warp24FragmentIteratorTensorOpIS17_S1B_fNS_5ArrayIfLi4ELb1EEES18_EENS1W_20TileIteratorTensorOpIS17_S1B_fS18_EENS1M_18SharedLoadIteratorINS1T_18CompactedThreadMapEfLi16EEENS1L_6thread17LinearCombinationIfLi4EffLNS26_9ScaleType4KindE0ELNS_15FloatRoundStyleE2EEENSA_ILi0ELi8EEELi2ELi1EEENS13_30GemmIdentityThreadblockSwizzleILi4EEELNS1_8OperatorE2ENS1_17Conv2dProblemSizeELNS1_9GroupModeE0EEEEEvNT_6ParamsE",
     SSA_KC_GEMM_TC},
    {"_ZN17cutlass__5x_cudnn6KernelINS_9reduction6kernel12ReduceSplitKINS_11MatrixShapeILi4ELi256EEENS_8epilogue6thread17LinearCombinationINS_10bfloat16_tELi8EffLNS7_9ScaleType4KindE0ELNS_15FloatRoundStyleE2EEENS1_6thread9ReduceAddIffLi8EEELi4EEEEEvNT_6ParamsE",
     SSA_KC_GEMM_TC},
    {"_ZN21cask_plugin__5x_cudnn14xmma__5x_cudnn28init_device_workspace_kernelIN14xmma__5x_cudnn13implicit_gemm13wgrad_indexed23Warp_specialized_paramsINS2_20Grid_constant_paramsEEEEEvT_b",
     SSA_KC_GEMM_TC},
    {"_ZN21cask_plugin__5x_cudnn14xmma__5x_cudnn28init_device_workspace_kernelIN14xmma__5x_cudnn13implicit_gemm5fprop36Warp_specialized_params_non_templateINS2_20Grid_constant_paramsEEEEEvT_b",
     SSA_KC_GEMM_TC},
    {"_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIN3c108BFloat16ENS0_14func_wrapper_tIS4_ZNS0_11sum_functorIS4_fS4_EclERNS_14TensorIteratorEEUlffE_EEjS4_Li4ELi8EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIN3c108BFloat16ENS0_7MeanOpsIS4_ffS4_EEjS4_Li4ELi8EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi256ELi2ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c108BFloat16ENS0_9ArgMaxOpsIfEEjlLi4ELi4EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIlNS0_14func_wrapper_tIlZNS0_11sum_functorIlllEclERNS_14TensorIteratorEEUlllE_EEjlLi4ELi4EEEEEvT1_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10DivFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_15CUDAFunctor_addIfEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_24mse_backward_cuda_kernelERNS_14TensorIteratorERKN3c106ScalarEENKUlvE_clEvENKUlvE0_clEvEUlfffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_22gpu_kernel_impl_nocastINS0_13BUnaryFunctorIN3c108BFloat16ES5_S5_NS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIN3c108BFloat16ES5_S5_ZNS0_67_GLOBAL__N__06c19b41_28_ActivationThresholdKernel_cu_751192d7_1581121threshold_kernel_implIS5_EEvRNS_18TensorIteratorBaseET_SA_EUlS5_S5_E_EEEEvS9_RKSA_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE2_clEvEUllE_St5arrayIPcLm2EELi4E23TrivialOffsetCalculatorILi1EjESB_NS0_6memory12LoadWithCastILi1EEENSC_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EELi4E23TrivialOffsetCalculatorILi1EjESB_NS0_6memory12LoadWithCastILi1EEENSC_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_11FillFunctorIlEESt5arrayIPcLm1EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_15CUDAFunctor_addIlEESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_21CUDAFunctorOnSelf_addIlEESt5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIiEESt5arrayIPcLm1EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffZNS0_67_GLOBAL__N__06c19b41_28_ActivationThresholdKernel_cu_751192d7_1581121threshold_kernel_implIfEEvRNS_18TensorIteratorBaseET_S7_EUlffE_EESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIllbNS0_51_GLOBAL__N__28ce311f_18_CompareEQKernel_cu_d8008c9616CompareEqFunctorIlEEEESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIfEESt5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_15mse_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE0_clEvEUlffE_St5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_15neg_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e19launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_11FillFunctorIN3c108BFloat16EEESt5arrayIPcLm1EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_13BinaryFunctorIN3c108BFloat16ES4_S4_ZNS0_67_GLOBAL__N__06c19b41_28_ActivationThresholdKernel_cu_751192d7_1581121threshold_kernel_implIS4_EEvRNS_18TensorIteratorBaseET_S9_EUlS4_S4_E_EESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_15CUDAFunctor_addIN3c108BFloat16EEESt5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8EZNS0_25bfloat16_copy_kernel_cudaERNS_18TensorIteratorBaseEEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8EZZZNS0_18GeluCUDAKernelImplERNS_18TensorIteratorBaseENS0_8GeluTypeEENKUlvE0_clEvENKUlvE2_clEvEUlN3c108BFloat16EE_St5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8EZZZNS0_26GeluBackwardCUDAKernelImplERNS_18TensorIteratorBaseENS0_8GeluTypeEENKUlvE0_clEvENKUlvE2_clEvEUlN3c108BFloat16ES8_E_St5arrayIPcLm3EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native29vectorized_elementwise_kernelILi8EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e19launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE7_clEvEUlNS5_8BFloat16EE_St5arrayIPcLm2EEEEviT0_T1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_34_cuda_scatter_fill_internal_kernelINS0_10OpaqueTypeILi4EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorES4_lllRKT_EUliE_EEviT1_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_kernel_2dIfflEEvPT_S4_PKS3_PKT1_S6_bllll",
     SSA_KC_REDUCTION},
    {"_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e139nll_loss_backward_reduce_cuda_kernel_2dIflEEvPT_PKS3_PKT0_S6_S6_biill",
     SSA_KC_REDUCTION},
    {"_ZN2at6native46batch_norm_backward_elemt_channels_last_kernelILi4EN3c108BFloat16EffEEvPKT0_S6_PKT1_S9_PKT2_S9_S9_PS4_S7_ii",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native47batch_norm_backward_reduce_channels_last_kernelILi4EN3c108BFloat16EffEEvPKT0_S6_PKT1_S9_PS7_SA_PT2_SC_PVS7_Piii",
     SSA_KC_REDUCTION},
    {"_ZN2at6native47batch_norm_transform_input_channels_last_kernelIN3c108BFloat16EffLi4EEEvPKT_S6_PKT0_S9_PKT1_SC_PS4_iib",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi3EZZZNS1_34batch_norm_update_stats_and_invertERKNS_6TensorES5_S5_S5_ddlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm7EE23TrivialOffsetCalculatorILi4EjESC_ILi3EjEEEviT0_T1_T2_T3_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEN3c108BFloat16EfLi4EEEvPKT0_PT1_S9_PVS8_PiiiS8_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIfiEEvT0_PKT_llliiiiiiiiiiPS4_Pl",
     SSA_KC_REDUCTION},
    {"_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nhwcIN3c108BFloat16EiEEvPKT_iT0_S8_S8_S8_S8_iiiiiiiiS8_S8_S8_S8_iiPS5_Pl",
     SSA_KC_REDUCTION},
    {"_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nchwIffiEEvPKT_PKlT1_S8_S8_S8_S8_S8_iiiiiiiiPS3_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nhwcIN3c108BFloat16EfEEvPKT_PKlillliiiiiiiiiiiiiiiPS5_",
     SSA_KC_REDUCTION},
    {"_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e8543distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_13normal_kernelIS7_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SM_SF_EEvSH_SJ_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESI_SJ_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native55_GLOBAL__N__11f7a751_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESF_SG_",
     SSA_KC_ELEMENTWISE},
    {"_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_",
     SSA_KC_OPTIMIZER},
    {"_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi3EEENS1_24BinaryOpListAlphaFunctorIfLi3ELi2ELi2EEEJSt4plusIfEfEEEvT_T0_DpT1_",
     SSA_KC_OPTIMIZER},
    {"_ZN2at6native57_GLOBAL__N__e658eeb9_24_ForeachBinaryOpScalar_cu_86b9896c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_21BinaryOpScalarFunctorIfLi1ELi1ELi0EEEJSt10multipliesIfEfEEEvT_T0_DpT1_",
     SSA_KC_OPTIMIZER},
    {"_ZN2at6native60_GLOBAL__N__2b2da9da_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE2_clEvEUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIlj5uint4S7_SF_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUljE_EEvS9_T2_RKT3_T4_EUlijE_EEvlNS_15PhiloxCudaStateET1_SJ_",
     SSA_KC_ELEMENTWISE},
    {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi10ELb1ELb0EEEvPT0_PKT_iiiPKbib",
     SSA_KC_REDUCTION},
    {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi4ELb1ELb0EEEvPT0_PKT_iiiPKbib",
     SSA_KC_REDUCTION},
    {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6321softmax_warp_backwardIfffLi10ELb1ELb0EEEvPT0_PKT_S5_iiiPKb",
     SSA_KC_REDUCTION},
    {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6321softmax_warp_backwardIfffLi4ELb1ELb0EEEvPT0_PKT_S5_iiiPKb",
     SSA_KC_REDUCTION},
    {"_ZN5cudnn17winograd_nonfused20winogradWgradData4x4IffEEvNS0_18WinogradDataParamsIT_T0_EE",
     SSA_KC_GEMM_FP32},
    {"_ZN5cudnn17winograd_nonfused21winogradWgradDelta4x4IffEEvNS0_19WinogradDeltaParamsIT_T0_EE",
     SSA_KC_GEMM_FP32},
    {"_ZN5cudnn17winograd_nonfused22winogradWgradOutput4x4IffEEvNS0_25WinogradWgradOutputParamsIT_T0_EE",
     SSA_KC_GEMM_FP32},
    {"_ZN5cudnn19engines_precompiled16nchwToNhwcKernelI13__nv_bfloat16S2_fLb0ELb1EL21cudnnKernelDataType_t0EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_",
     SSA_KC_ELEMENTWISE},
    {"_ZN5cudnn19engines_precompiled16nchwToNhwcKernelIfffLb0ELb1EL21cudnnKernelDataType_t2EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_",
     SSA_KC_ELEMENTWISE},
    {"_ZN5cudnn19engines_precompiled16nhwcToNchwKernelI13__nv_bfloat16S2_fLb1ELb0EL21cudnnKernelDataType_t0EEEvNS0_18nhwc2nchw_params_tIT1_EEPKT_PT0_",
     SSA_KC_ELEMENTWISE},
    {"_ZN5cudnn19engines_precompiled16nhwcToNchwKernelIfffLb1ELb0EL21cudnnKernelDataType_t0EEEvNS0_18nhwc2nchw_params_tIT1_EEPKT_PT0_",
     SSA_KC_ELEMENTWISE},
    {"_ZN5cudnn21bn_bw_1C11_kernel_newIff6float2Li128ELb1ELi1EEEvT0_S2_S2_S2_17cudnnTensorStructPKT_S3_S6_S3_PS4_PKS2_PS2_SA_S9_S9_S2_",
     SSA_KC_REDUCTION},
    {"_ZN5cudnn21bn_bw_1C11_singlereadIfLi512ELb1ELi1ELi2ELi0EEEvNS_15bn_bw_1C11_argsIT_EE",
     SSA_KC_REDUCTION},
    {"_ZN5cudnn24bn_fw_tr_1C11_singlereadIfLi512ELb1ELi1ELi2ELi0EEEvNS_18bn_fw_tr_1C11_argsIT_EE",
     SSA_KC_REDUCTION},
    {"_ZN5cudnn25bn_fw_tr_1C11_kernel_NCHWIffiLi128ELb1ELi1ELb1EEEv17cudnnTensorStructPKT_S1_PS2_PKT0_S8_S6_S6_PS6_S9_S9_S9_S6_S6_",
     SSA_KC_REDUCTION},
    {"_ZN5cudnn3cnn23kern_precompute_indicesILb0EEEvPiiiiii",
     SSA_KC_OTHER},
    {"_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nn_align1EEvNT_6ParamsE",
     SSA_KC_GEMM_FP32},
    {"_ZN8cublasLt19splitKreduce_kernelILi32ELi16EiffffLb0EfffLb1ELb0ELb0ELb0EEEvNS_18cublasSplitKParamsIT4_EEPKT2_PKT8_PT7_PT3_PKS2_SF_PKT9_S6_PSG_PvlPS2_PiSL_SL_SF_SF_SF_SF_SF_",
     SSA_KC_GEMM_FP32},
    {"_ZN8cublasLt8epilogue4impl12globalKernelILi8ELi32EfffLb1ELb1ELi1EEEviilPT1_18cublasLtEpilogue_tiPT2_lPvlllPT3_lPi",
     SSA_KC_GEMM_FP32},
    {"nvjet_sm90_tst_192x192_64x3_1x2_h_bz_coopB_NNN",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_192x192_64x4_1x2_h_bz_coopB_bias_TNN",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NTT",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_40x64_64x16_4x2_h_bz_bias_TNN",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_64x24_64x16_2x4_h_bz_NNT",
     SSA_KC_GEMM_TC},
    {"nvjet_sm90_tst_64x64_64x13_2x1_v_bz_NTT",
     SSA_KC_GEMM_TC},
    {"sm80_xmma_dgrad_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize32x32x8_stage3_warpsize1x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_FP32},
    {"sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x32x8_stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_FP32},
    {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_FP32},
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
     SSA_KC_GEMM_FP32},
    {"sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize16x64x64_stage1_warpsize1x4x1_g1_tensor16x8x8_aligna8_alignc8_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_FP32},
    {"sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x32_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_dgrad_implicit_gemm_indexed_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_strided_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_dgrad_implicit_gemm_indexed_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize256x128x64_warpgroupsize2x1x1_g1_strided_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_dgrad_implicit_gemm_indexed_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize256x64x64_warpgroupsize1x1x1_g1_strided_execute_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize256x64x32_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize256x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_split_k_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x128x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
    {"sm90_xmma_wgrad_indexed_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_split_k_kernel__5x_cudnn",
     SSA_KC_GEMM_TC},
};

static const struct named other_names[] = {
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", SSA_KC_NCCL},
    {"ncclKernel_AllGather_RING_LL_Sum_int8_t", SSA_KC_NCCL},
    {"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false>>", SSA_KC_ATTENTION},
    {"_ZN5flash15flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traits", SSA_KC_ATTENTION},
    {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", SSA_KC_ATTENTION},
    {"_ZN2at6native12_GLOBAL__N_120fused_adam_cuda_kernelIfEEvv", SSA_KC_OPTIMIZER},
    {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn", SSA_KC_GEMM_TC},
    {"ampere_sgemm_128x64_nn", SSA_KC_GEMM_FP32},
    {"sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128", SSA_KC_GEMM_TC},
    {"triton_poi_fused_add_mul_0", SSA_KC_ELEMENTWISE},
    {"triton_red_fused_native_layer_norm_1", SSA_KC_REDUCTION},
    /* as torch.profiler writes it (demangled; the collector's mangled name also matches) */
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<float, float, "
     "32u, 16u, 32u, true, false>(long, long, float const*, float const*, float const*, float "
     "const*, float*, float*)",
     SSA_KC_REDUCTION},
    {"triton_tem_fused_mm_2", SSA_KC_GEMM_TC},
    {"_ZN2at6native53_GLOBAL__N__vectorized_layer_norm_kernelIN3c108BFloat16EfEEvifPKT_", SSA_KC_REDUCTION},
    {"my_custom_kernel", SSA_KC_OTHER},
    {"", SSA_KC_OTHER},
};

static void check_names(const struct named *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        enum ssa_kclass got = ssa_kernel_class(v[i].name);
        if (got != v[i].kc)
            SS_FAIL_AT("%s: class %s, want %s", v[i].name, ssa_kclass_name(got),
                       ssa_kclass_name(v[i].kc));
    }
}

/* What a kernel says of the tensors' layout (the nchw_layout what-if): real names of the zoo's
 * NCHW and channels_last recordings (tv_resnet34_nchw, tv_resnet18_pageable, tv_mobilenet_nchw;
 * mangled, as the collector records them). A channels_last BatchNorm kernel is none of them. */
struct layout_named {
    const char *name;
    enum ssa_layout layout;
};
static const struct layout_named layout_names[] = {
    {"_ZN5cudnn19engines_precompiled16nchwToNhwcKernelI13__nv_bfloat16S2_fLb0ELb1EL21cudnnKernelDat"
     "aType_t0EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_", SSA_LAYOUT_TRANSPOSE},
    {"_ZN5cudnn19engines_precompiled16nhwcToNchwKernelI13__nv_bfloat16S2_fLb1ELb0EL21cudnnKernelDat"
     "aType_t0EEEvNS0_18nhwc2nchw_params_tIT1_EEPKT_PT0_", SSA_LAYOUT_TRANSPOSE},
    {"_ZN2at6native26batch_norm_backward_kernelIN3c108BFloat16EffiEEvN5torch27GenericPackedTensor"
     "AccessorIKT_Li3ENS_17RestrictPtrTraitsET2_EE", SSA_LAYOUT_NCHW_NORM},
    {"_ZN2at6native36batch_norm_collect_statistics_kernelINS0_3VarEN3c108BFloat16EfiEEvN5torch27Gen"
     "ericPackedTensorAccessorIKT0_Li3ENS_17RestrictPtrTraitsET2_EE", SSA_LAYOUT_NCHW_NORM},
    {"_ZN2at6native33batch_norm_transform_input_kernelIN3c108BFloat16EffLb1EiEEvN5torch27Generic"
     "PackedTensorAccessorIKT_Li3ENS_17RestrictPtrTraitsET3_EE", SSA_LAYOUT_NCHW_NORM},
    {"_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEN3c108BFloat16Ef"
     "Li4EEEvPKT0_PT1_S9_PVS8_PiiiS8_", SSA_LAYOUT_NONE},
    {"_ZN2at6native47batch_norm_transform_input_channels_last_kernelIN3c108BFloat16EffLi4EEEvPKT_"
     "S6_PKT0_S9_PKT1_SC_PS4_iib", SSA_LAYOUT_NONE},
    {"_ZN2at6native45batch_norm_backward_reduce_channels_last_kernelILi4EN3c108BFloat16EffEEvPKT0_"
     "S6_PKT1_S9_PT2_SB_SB_SB_PViPiii", SSA_LAYOUT_NONE},
    {"_ZN2at6native12_GLOBAL__N_130conv_depthwise2d_forward_kernelILi3EN3c108BFloat16EiEEvN5torch"
     "27GenericPackedTensorAccessorIKT0_Li4ENS_17RestrictPtrTraitsET1_EE", SSA_LAYOUT_DEPTHWISE},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64",
     SSA_LAYOUT_NONE},
    {NULL, SSA_LAYOUT_NONE},
};

static void check_layouts(void)
{
    for (size_t i = 0; i < sizeof layout_names / sizeof layout_names[0]; i++) {
        enum ssa_layout got = ssa_kernel_layout(layout_names[i].name);
        const char *name = layout_names[i].name ? layout_names[i].name : "NULL";
        if (got != layout_names[i].layout)
            SS_FAIL_AT("%s: layout %d, want %d", name, (int)got, (int)layout_names[i].layout);
    }
    /* the transposes end a fusion run: the layout what-if prices them */
    CHECK_EQ(ssa_kernel_fusion(layout_names[0].name), SSA_FUSE_DONE);
}

/* How an optimizer kernel was launched (issue #31): real names of the H200 fixtures
 * (h200-1201/fw: eager_mlp's per-tensor AdamW and fused AdamW, timm_vit's foreach AdamW with
 * its lerp, h200-gpubound-bf16's foreach SGD, clip_grad_norm_'s foreach norm). */
struct opt_named {
    const char *name;
    enum ssa_opt_kind kind;
    int adam;
};
static const struct opt_named opt_names[] = {
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_45_GLOBAL__N__d296b789_7_Lerp_cu_"
     "751192d7_2018418lerp_scalar_kernelERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE0_clEvE",
     SSA_OPT_SINGLE, 1},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_19addcdiv_cuda_kernelERNS_18Tensor"
     "IteratorBaseERKN3c106ScalarEENKUlvE0_clEvENKUlvE5_clEvEUlfffE_St5arrayIPcLm4EEEEviT0_T1_",
     SSA_OPT_SINGLE, 1},
    {"_ZN2at6native52_GLOBAL__N__c815dac0_19_fused_adamw_impl_cu_8b44fa2325multi_tensor_apply_"
     "kernelINS1_32FusedOptimizerTensorListMetadataILi4EEENS1_20FusedAdamMathFunctorIfLi4ELNS0_"
     "9ADAM_MODEE1ELb0EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_",
     SSA_OPT_FUSED, 1},
    {"_ZN2at6native52_GLOBAL__N__4671fab5_19_ForeachTernaryOp_cu_5285c63625multi_tensor_apply_"
     "kernelINS1_18TensorListMetadataILi2EEENS1_22TernaryOpScalarFunctorIfLi2ELi2ELi0EEEJNS0_"
     "11LerpFunctorIfEEfEEEvT_T0_DpT1_",
     SSA_OPT_FOREACH, 1},
    {"_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_"
     "kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4"
     "plusIfEfEEEvT_T0_DpT1_",
     SSA_OPT_FOREACH, 0},
    {"_ZN2at6native51_GLOBAL__N__d9d46141_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_"
     "kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE1EfLi1ELi1ELi0EE"
     "EJPfiEEEvT_T0_DpT1_",
     SSA_OPT_NONE, 0},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEE"
     "EviT0_T1_",
     SSA_OPT_NONE, 0},
};

static void check_optimizer_kinds(void)
{
    for (size_t i = 0; i < sizeof opt_names / sizeof opt_names[0]; i++) {
        int adam = -1;
        enum ssa_opt_kind k = ssa_optimizer_kind(opt_names[i].name, &adam);
        if (k != opt_names[i].kind || adam != opt_names[i].adam)
            printf("optimizer kind of %.60s...: %d (adam %d), want %d (adam %d)\n",
                   opt_names[i].name, k, adam, opt_names[i].kind, opt_names[i].adam);
        CHECK_EQ(k, opt_names[i].kind);
        CHECK_EQ(adam, opt_names[i].adam);
    }
}

static void check_api_table(void)
{
    /* the calls seen in the fixtures, and CUDA 13's new launch entry point */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 211), SSA_API_LAUNCH); /* cudaLaunchKernel */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 505), SSA_API_LAUNCH); /* __cudaLaunchKernel */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 430), SSA_API_LAUNCH); /* cudaLaunchKernelExC */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 41), SSA_API_LAUNCH);  /* cudaMemcpyAsync */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 51), SSA_API_LAUNCH);  /* cudaMemsetAsync */
    CHECK_EQ(ssa_api_class(SST_API_DRIVER, 652), SSA_API_LAUNCH);  /* cuLaunchKernelEx */
    CHECK_EQ(ssa_api_class(SST_API_DRIVER, 307), SSA_API_LAUNCH);  /* cuLaunchKernel */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 131), SSA_API_SYNC);   /* cudaStreamSynchronize */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 165), SSA_API_SYNC);   /* cudaDeviceSynchronize */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 137), SSA_API_SYNC);   /* cudaEventSynchronize */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 31), SSA_API_SYNC);    /* cudaMemcpy */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 20), SSA_API_ALLOC);   /* cudaMalloc */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 22), SSA_API_ALLOC);   /* cudaFree */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 27), SSA_API_ALLOC);   /* cudaHostAlloc */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 134), SSA_API_OTHER);  /* cudaEventCreateWithFlags */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 370), SSA_API_OTHER);  /* cudaEventRecordWithFlags */
    CHECK_EQ(ssa_api_class(SST_API_DRIVER, 211), SSA_API_OTHER);   /* domains do not mix */
    CHECK_EQ(ssa_api_class(SST_API_RUNTIME, 0xFFFFFFFFu), SSA_API_OTHER);
    CHECK_EQ(ssa_api_class(99, 211), SSA_API_OTHER);
    CHECK_STR(ssa_api_name(SST_API_RUNTIME, 505), "__cudaLaunchKernel_v13000");
    CHECK_STR(ssa_api_name(SST_API_DRIVER, 652), "cuLaunchKernelEx");
    CHECK(ssa_api_name(SST_API_RUNTIME, 134) == NULL);
}

int main(void)
{
    check_names(real_names, sizeof real_names / sizeof real_names[0]);
    check_layouts();
    check_names(other_names, sizeof other_names / sizeof other_names[0]);
    check_api_table();
    check_optimizer_kinds();
    for (int c = 0; c < SSA_CAT_COUNT; c++) CHECK(ssa_cat_name(c) && ssa_cat_description(c));
    CHECK(ssa_cat_name(SSA_CAT_COUNT) == NULL);
    return ss_test_result();
}
