// Keeping freed memory in the process for the next request, for the programs (app, CLI,
// benchmarks) to call once at start-up; the core library itself never changes process-wide
// allocator settings.
//
// Why: a forward pass and the analyses after it allocate temporaries of hundreds of kilobytes to
// tens of megabytes (maps, projections, layer terms). glibc serves blocks over its mmap threshold
// with fresh mappings and returns freed heap tops to the kernel, so every request faults the same
// memory in again, page by page. On the virtual machines this project runs on a fault costs ~15
// µs: a BERT-base pass at 128 tokens spent a third of its time in them, and norm-based
// attribution half of its (tests/bench/README.md ▸ Attribution maps). Keeping freed memory makes
// the process's footprint its peak so far, as PyTorch's caching allocator does.
#pragma once

namespace attnscope {

// Raises glibc's mmap threshold to 32 MiB (its maximum), stops heap trimming below 1 GiB of
// free space, and keeps freed FloatBuffer blocks of 32 MiB and more (up to 1 GiB) for reuse.
// No effect (and no error) on other C libraries.
void keepFreedMemoryForReuse();

}  // namespace attnscope
