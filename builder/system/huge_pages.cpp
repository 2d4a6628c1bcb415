#include "builder/system/huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace dtb {

namespace {

std::atomic<std::uint64_t> mapped{0};

std::size_t rounded_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

std::size_t mapped_length(std::size_t bytes) {
    static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return rounded_up(bytes, page);
}

}  // namespace

// The block is mapped a huge page longer than it needs and trimmed to start
// at a huge page; its last, partial huge page is left to small pages, so that
// the block holds no more memory than it uses.
void* map_huge_paged(std::size_t bytes) {
    const std::size_t length = mapped_length(bytes);
    void* const at = mmap(nullptr, length + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) throw std::bad_alloc();
    char* const start = static_cast<char*>(at);
    char* const block = reinterpret_cast<char*>(rounded_up(reinterpret_cast<std::uintptr_t>(start), huge_page_bytes));
    const std::size_t before = static_cast<std::size_t>(block - start);
    if (before > 0) munmap(start, before);
    munmap(block + length, huge_page_bytes - before);
    madvise(block, bytes / huge_page_bytes * huge_page_bytes, MADV_HUGEPAGE);  // refused where the kernel has none
    mapped.fetch_add(length, std::memory_order_relaxed);
    return block;
}

void unmap_huge_paged(void* block, std::size_t bytes) noexcept {
    const std::size_t length = mapped_length(bytes);
    munmap(block, length);
    mapped.fetch_sub(length, std::memory_order_relaxed);
}

std::uint64_t huge_paged_bytes() noexcept { return mapped.load(std::memory_order_relaxed); }

}  // namespace dtb
