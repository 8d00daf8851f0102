# Each case must fail to compile with a message that names the broken rule.
tessel_compile_fail_test(compile_fail_composition_stride composition_stride.cpp
                         "composition: stride divisibility violated")
tessel_compile_fail_test(compile_fail_composition_shape composition_shape.cpp
                         "composition: shape divisibility violated")
tessel_compile_fail_test(compile_fail_composition_carry composition_carry.cpp
                         "composition: B's modes overlap inside a mode of A")
tessel_compile_fail_test(compile_fail_complement_overlap complement_overlap.cpp
                         "complement: a stride is not a multiple of the extent")
tessel_compile_fail_test(compile_fail_left_inverse_broadcast left_inverse_broadcast.cpp
                         "left_inverse: the layout is not injective")
tessel_compile_fail_test(compile_fail_tile_to_shape_multiple tile_to_shape_multiple.cpp
                         "tile_to_shape: a mode of the target is not a multiple")
tessel_compile_fail_test(compile_fail_swizzle_overlap swizzle_overlap.cpp
                         "Swizzle: .S. must be >= B")
tessel_compile_fail_test(compile_fail_layout_not_congruent layout_not_congruent.cpp
                         "Layout: shape and stride must be congruent")
tessel_compile_fail_test(compile_fail_gemm_config_tile_k gemm_config_tile_k.cpp
                         "GemmConfigSm80: TileK must be 32 or 64")
tessel_compile_fail_test(compile_fail_gemm_config_tile_m gemm_config_tile_m.cpp
                         "GemmConfigSm80: TileM must be a multiple of the tiled MMA")
tessel_compile_fail_test(compile_fail_gemm_config_smem gemm_config_smem.cpp
                         "GemmConfigSm80: the shared-memory stages exceed 227 KiB")
tessel_compile_fail_test(compile_fail_gemm_config_stages gemm_config_stages.cpp
                         "GemmConfigSm80: 2 to 6 pipeline stages")
tessel_compile_fail_test(compile_fail_gemm_config_epilogue gemm_config_epilogue.cpp
                         "GemmConfigSm80: the epilogue's fp32 staging tile")
tessel_compile_fail_test(compile_fail_gemm_config_mn_major gemm_config_mn_major.cpp
                         "OperandSm80: an MN-major operand needs TileM/TileN to be a multiple of 64")
tessel_compile_fail_test(compile_fail_gemm_config_sm90_accumulators gemm_config_sm90_accumulators.cpp
                         "GemmConfigSm90: at most 128 accumulators a thread")
tessel_compile_fail_test(compile_fail_tiled_copy_without_permutation tiled_copy_without_permutation.cpp
                         "TiledCopy: each thread's values are not a whole number of atom copies")
