// The ranks that solve one material together (DESIGN.md §9; docs/design.md,
// "Distributed build"). The solver and the table writer talk to their team
// through this interface only, so they know nothing of MPI (the way Pentago's
// solver is kept apart from its transport): `SoloTeam` is the one-process
// build, `MpiTeam` (builder/mpi/) a group of MPI ranks, and the tests' team
// of threads checks the distributed algorithm without MPI.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace dtb {

class Team {
public:
    virtual ~Team() = default;

    // This member, 0..size() - 1. Member 0 writes the team's tables.
    virtual int rank() const noexcept = 0;
    virtual int size() const noexcept = 0;

    // What a member received from each member in one exchange: the bytes,
    // in member order, and where each member's part starts (size() + 1 offsets).
    struct Received {
        std::vector<std::byte> bytes;
        std::vector<std::size_t> offsets;
    };

    // All to all, collective: `counts[j]` bytes of `data`, taken in member
    // order, go to member j (its own part included).
    virtual Received all_to_all(std::span<const std::byte> data, std::span<const std::size_t> counts) = 0;

    // Collective reductions of one number per member.
    virtual std::uint64_t all_max(std::uint64_t value) = 0;
    virtual std::uint64_t all_sum(std::uint64_t value) = 0;
    std::uint64_t all_min(std::uint64_t value) { return ~all_max(~value); }

    // Point to point, delivered in order between two members.
    virtual void send(int to, std::span<const std::byte> data) = 0;
    virtual std::vector<std::byte> receive(int from) = 0;
};

// The team of a build that runs as one process: every exchange is with itself.
class SoloTeam final : public Team {
public:
    int rank() const noexcept override { return 0; }
    int size() const noexcept override { return 1; }
    Received all_to_all(std::span<const std::byte> data, std::span<const std::size_t>) override {
        return {std::vector<std::byte>(data.begin(), data.end()), {0, data.size()}};
    }
    std::uint64_t all_max(std::uint64_t value) override { return value; }
    std::uint64_t all_sum(std::uint64_t value) override { return value; }
    void send(int, std::span<const std::byte>) override {
        throw std::logic_error("a team of one has no one to send to");
    }
    std::vector<std::byte> receive(int) override { throw std::logic_error("a team of one has no one to receive from"); }
};

// What each member sent to this one in a typed exchange (exchange() below).
template <class T>
class Inbox {
public:
    Inbox() = default;
    explicit Inbox(Team::Received received) : received_(std::move(received)) {
        for (std::size_t o : received_.offsets)
            if (o % sizeof(T) != 0) throw std::logic_error("an exchange delivered a partial element");
    }
    int members() const noexcept { return static_cast<int>(received_.offsets.size()) - 1; }
    // The elements member `m` sent. The bytes come from operator new, aligned
    // for any scalar, and T is trivially copyable (checked by exchange()).
    std::span<const T> from(int m) const noexcept {
        const std::byte* first = received_.bytes.data() + received_.offsets[m];
        return {reinterpret_cast<const T*>(first), (received_.offsets[m + 1] - received_.offsets[m]) / sizeof(T)};
    }
    std::size_t total() const noexcept { return received_.bytes.size() / sizeof(T); }

private:
    Team::Received received_;
};

// All to all of elements: `counts[j]` elements of `data`, in member order, go
// to member j.
template <class T>
Inbox<T> exchange(Team& team, std::span<const T> data, std::span<const std::size_t> counts) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<std::size_t> bytes(counts.size());
    for (std::size_t j = 0; j < counts.size(); ++j) bytes[j] = counts[j] * sizeof(T);
    return Inbox<T>(team.all_to_all(std::as_bytes(data), bytes));
}

// All to all of one vector per member.
template <class T>
Inbox<T> exchange(Team& team, const std::vector<std::vector<T>>& out) {
    std::vector<T> data;
    std::vector<std::size_t> counts;
    for (const std::vector<T>& part : out) {
        data.insert(data.end(), part.begin(), part.end());
        counts.push_back(part.size());
    }
    return exchange<T>(team, data, counts);
}

// How a team shares the work (docs/design.md, "Distributed build").
struct TeamOptions {
    // A level with fewer men configurations than this many per member has
    // every pair split over the team; otherwise each member takes whole pairs.
    std::uint64_t configurations_per_member = 8;
    // Pairs of fewer positions are never split (tests lower it to split small pairs).
    std::uint64_t min_split_positions = 1 << 12;
    // Positions whose lookups are exchanged at once, and queued positions
    // whose predecessor updates are: they bound the messages and their memory.
    std::uint64_t lookup_positions = 1 << 21;
    std::uint64_t update_positions = 1 << 20;
    // Whole pairs of at least this many positions are solved one at a time
    // with all threads (MaterialSolver::shared_pair_positions; tests lower it).
    std::uint64_t shared_pair_positions = 1 << 15;
};

// The first of member j's share when `total` things are shared out among
// `members`: total * j / members, rounded down, without overflow.
inline std::uint64_t share_bound(std::uint64_t total, int j, int members) noexcept {
    __extension__ typedef unsigned __int128 wide;  // __extension__: silenced for -Wpedantic
    return static_cast<std::uint64_t>(static_cast<wide>(total) * static_cast<unsigned>(j) / static_cast<unsigned>(members));
}

// Positions [0, total) split into `members` ranges whose boundaries are
// multiples of 2^align_shift: member j holds [bounds[j], bounds[j + 1]).
// Every member computes the same split.
struct Ranges {
    std::vector<std::uint64_t> bounds;

    static Ranges split(std::uint64_t total, int members, int align_shift) {
        Ranges r;
        const std::uint64_t units = (total + (std::uint64_t{1} << align_shift) - 1) >> align_shift;
        for (int j = 0; j <= members; ++j) {
            r.bounds.push_back(std::min(total, share_bound(units, j, members) << align_shift));
        }
        return r;
    }
    // The member whose range holds position g < total.
    int owner(std::uint64_t g) const noexcept {
        return static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, g) - bounds.begin()) - 1;
    }
    std::uint64_t first(int member) const noexcept { return bounds[member]; }
    std::uint64_t count(int member) const noexcept { return bounds[member + 1] - bounds[member]; }
};

}  // namespace dtb
