// <immintrin.h> for the kernels' translation units (q8_kernel_impl.h, row_kernel_impl.h), with
// GCC 12's bug 105593 (see attnscope/base/eigen_core.h) silenced for it alone: its AVX-512
// intrinsics that start from an undefined vector (_mm512_cvtepi32_ps, _mm512_cvtepi8_epi32)
// warn wherever they are inlined. Plain declarations only, as weight_kernel.h requires.
#pragma once

#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
