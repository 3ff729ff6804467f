// The one place the core includes Eigen, so that the workaround below covers every use.
//
// GCC 12 warns "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics
// (avx512fintrin.h's _mm512_undefined_ps, inlined into Eigen's AVX-512 packet transposes): GCC
// bug 105593, fixed in GCC 13. Eigen is already a system include, but the warning is raised
// where the intrinsic is inlined, so only a diagnostic pragma around the first inclusion of
// <immintrin.h> (Eigen includes it) silences it. Under -fsanitize=address,undefined the same
// spot is reported as "'__Y' is used uninitialized" (-Wuninitialized) instead, so both are
// silenced. It is scoped to these headers: the project's own code keeps -Wmaybe-uninitialized
// and -Wuninitialized under -Werror. Clang (the fuzz build) has no -Wmaybe-uninitialized and
// warns about an unknown group, so it only gets the other.
#pragma once

#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <Eigen/Core>
#pragma GCC diagnostic pop
