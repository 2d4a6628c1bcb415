// Elements of one type exchanged with every member of a team in rounds, the
// buffers kept from round to round.
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <span>
#include <type_traits>
#include <vector>

#include "builder/team/team.hpp"
#include "builder/team/wire_packing.hpp"

namespace dtb {

// Elements of type T sent to every member of the team in rounds of
// exchanges, the buffers kept from round to round. Post to to(j), or give
// send() a buffer already in member order; then from(j) is what member j
// sent, until the next exchange. The parts for other members cross packed
// (wire_packing.hpp); a member's part for itself is only copied.
template <class T>
class Mailbox {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    explicit Mailbox(int members) : out_(members), counts_(members), start_(members), end_(members) {}

    std::vector<T>& to(int member) noexcept { return out_[member]; }

    // Sends what was posted to each member (and empties the posts).
    void exchange(Team& team) {
        staging_.clear();
        for (std::size_t j = 0; j < out_.size(); ++j) {
            const std::size_t before = staging_.size();
            stage(team, static_cast<int>(j), std::as_bytes(std::span<const T>(out_[j])));
            counts_[j] = staging_.size() - before;
            out_[j].clear();
        }
        cross(team);
    }

    // Sends counts[j] elements of `data`, taken in member order, to member j.
    void send(Team& team, std::span<const T> data, std::span<const std::size_t> counts) {
        staging_.clear();
        std::size_t at = 0;
        for (std::size_t j = 0; j < counts.size(); ++j) {
            const std::size_t before = staging_.size();
            stage(team, static_cast<int>(j), std::as_bytes(data.subspan(at, counts[j])));
            counts_[j] = staging_.size() - before;
            at += counts[j];
        }
        cross(team);
    }

    // What member j sent in the last exchange. The bytes come from operator
    // new, aligned for any scalar, each part from a multiple of 8 bytes,
    // and every part is whole elements.
    std::span<const T> from(int j) const noexcept {
        return {reinterpret_cast<const T*>(unpacked_.data() + start_[j]), (end_[j] - start_[j]) / sizeof(T)};
    }
    // The same, to be decoded in place.
    std::span<T> received(int j) noexcept {
        return {reinterpret_cast<T*>(unpacked_.data() + start_[j]), (end_[j] - start_[j]) / sizeof(T)};
    }

private:
    // Member j's part, packed unless it is this member's own.
    void stage(Team& team, int j, std::span<const std::byte> part) {
        if (j != team.rank()) return packer_.pack(part, sizeof(T), staging_);
        staging_.insert(staging_.end(), part.begin(), part.end());
    }

    // Sends the parts staged, and unpacks what came.
    void cross(Team& team) {
        team.all_to_all(staging_, counts_, received_);
        const auto part = [&](std::size_t j) {
            return std::span<const std::byte>(received_.bytes.data() + received_.offsets[j],
                                              received_.offsets[j + 1] - received_.offsets[j]);
        };
        const int me = team.rank();
        std::size_t at = 0;
        for (std::size_t j = 0; j < out_.size(); ++j) {
            const std::size_t size = static_cast<int>(j) == me ? part(j).size() : WirePacker::unpacked_size(part(j));
            if (size % sizeof(T) != 0)
                throw std::runtime_error("team member " + std::to_string(j) + " sent a part of an element");
            start_[j] = at;
            end_[j] = at + size;
            at += (size + 7) / 8 * 8;
        }
        unpacked_.resize(at);
        for (std::size_t j = 0; j < out_.size(); ++j) {
            std::byte* into = unpacked_.data() + start_[j];
            if (static_cast<int>(j) != me)
                packer_.unpack(part(j), sizeof(T), into, "team member " + std::to_string(j));
            else if (!part(j).empty())
                std::memcpy(into, part(j).data(), part(j).size());
        }
    }

    std::vector<std::vector<T>> out_;
    std::vector<std::size_t> counts_;
    HugePagedVector<std::byte> staging_;
    Team::Received received_;
    Buffer unpacked_;
    std::vector<std::size_t> start_, end_;  // where each member's part is in unpacked_
    WirePacker packer_;
};

}  // namespace dtb
