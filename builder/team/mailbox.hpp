// Elements of one type exchanged with every member of a team in rounds, the
// buffers kept from round to round.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "builder/team/team.hpp"

namespace dtb {

// Elements of type T sent to every member of the team in rounds of
// exchanges, the buffers kept from round to round. Post to to(j), or give
// send() a buffer already in member order; then from(j) is what member j
// sent, until the next exchange.
template <class T>
class Mailbox {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    explicit Mailbox(int members) : out_(members), counts_(members) {}

    std::vector<T>& to(int member) noexcept { return out_[member]; }

    // Sends what was posted to each member (and empties the posts).
    void exchange(Team& team) {
        std::size_t total = 0;
        for (const std::vector<T>& o : out_) total += o.size();
        staging_.resize(total * sizeof(T));
        std::byte* at = staging_.data();
        for (std::size_t j = 0; j < out_.size(); ++j) {
            counts_[j] = out_[j].size() * sizeof(T);
            if (counts_[j]) std::memcpy(at, out_[j].data(), counts_[j]);
            at += counts_[j];
            out_[j].clear();
        }
        team.all_to_all(std::span<const std::byte>(staging_.data(), total * sizeof(T)), counts_, received_);
    }

    // Sends counts[j] elements of `data`, taken in member order, to member j.
    void send(Team& team, std::span<const T> data, std::span<const std::size_t> counts) {
        for (std::size_t j = 0; j < counts.size(); ++j) counts_[j] = counts[j] * sizeof(T);
        team.all_to_all(std::as_bytes(data), counts_, received_);
    }

    // What member j sent in the last exchange. The bytes come from operator
    // new, aligned for any scalar, and every part is whole elements.
    std::span<const T> from(int j) const noexcept {
        const std::byte* first = received_.bytes.data() + received_.offsets[j];
        return {reinterpret_cast<const T*>(first), (received_.offsets[j + 1] - received_.offsets[j]) / sizeof(T)};
    }
    std::size_t received() const noexcept { return received_.offsets.back() / sizeof(T); }

private:
    std::vector<std::vector<T>> out_;
    std::vector<std::size_t> counts_;
    Buffer staging_;
    Team::Received received_;
};

}  // namespace dtb
