// Must not compile: without the sm80 GEMM's permutation (seed 004's (1,2,1)) a thread holds 4
// values of B per k-slice, but ldmatrix.x4 delivers 8, so the shared -> register copy built
// from the TiledMMA's B layout cannot exist (docs/guide/03-registers.md shows this error).
#include <tessel/gemm/config_sm80.hpp>
using Config = tessel::GemmConfigSm80<128, 128, 32, 4>;
using WithoutPermutation =
    tessel::TiledMMA<Config::MmaOp,
                     tessel::Layout<tessel::Shape<tessel::Int<2>, tessel::Int<2>, tessel::Int<1>>>>;
using CopyB = decltype(tessel::make_tiled_copy_B(
    tessel::CopyAtom<tessel::SM80_LDMATRIX_X4, tessel::Half>{}, WithoutPermutation{}));
constexpr int values = CopyB::kValues;
