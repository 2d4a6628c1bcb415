// Arrays the build makes anew for every material (its values, the ranges a
// team member holds and fetches, a level's work) mapped on their own on the
// kernel's transparent huge pages where it allows them: one page fault for
// 2 MiB instead of one for 4 KiB (docs/design.md, Solver, "Memory").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace dtb {

// The size of a transparent huge page on x86-64 (and AArch64 with 4 KiB
// pages); smaller arrays come from the heap.
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Under AddressSanitizer every array comes from the heap, where it is checked.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool huge_pages_mapped = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool huge_pages_mapped = false;
#else
inline constexpr bool huge_pages_mapped = true;
#endif
#else
inline constexpr bool huge_pages_mapped = true;
#endif

// Maps `bytes` (at least huge_page_bytes) at a multiple of huge_page_bytes
// and asks for huge pages over its whole huge pages (madvise(MADV_HUGEPAGE),
// which the kernel may refuse: small pages then, as any other memory). The
// memory reads as zeros. Throws std::bad_alloc where the system has no room.
void* map_huge_paged(std::size_t bytes);
void unmap_huge_paged(void* block, std::size_t bytes) noexcept;
// The bytes mapped by map_huge_paged() and not yet unmapped, all threads.
std::uint64_t huge_paged_bytes() noexcept;

// An allocator that maps arrays of huge_page_bytes or more on their own
// (map_huge_paged()) and takes smaller ones from the heap.
template <class T>
struct HugePaged {
    using value_type = T;
    HugePaged() noexcept = default;
    template <class U>
    HugePaged(const HugePaged<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (!mapped_here(n)) return std::allocator<T>().allocate(n);
        return static_cast<T*>(map_huge_paged(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (!mapped_here(n)) return std::allocator<T>().deallocate(p, n);
        unmap_huge_paged(p, n * sizeof(T));
    }
    static bool mapped_here(std::size_t n) noexcept { return huge_pages_mapped && n * sizeof(T) >= huge_page_bytes; }
    template <class U>
    bool operator==(const HugePaged<U>&) const noexcept {
        return true;
    }
};

template <class T>
using HugePagedVector = std::vector<T, HugePaged<T>>;

}  // namespace dtb
