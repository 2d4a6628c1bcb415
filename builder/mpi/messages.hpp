// What the coordinator of a distributed build (builder/driver/
// coordinator.hpp) and every rank's worker (worker.hpp) say to each other,
// on the session's coordination communicator: the messages of
// builder/driver/assignment.hpp, read and written here alone (JSON text).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "builder/driver/assignment.hpp"

namespace dtb::mpi {

constexpr int assign_tag = 1;  // coordinator to worker: an Assignment
constexpr int done_tag = 2;    // worker to coordinator: a Done
constexpr int finish_tag = 3;  // coordinator to worker: nothing is left (no text)

std::string to_text(const Assignment& a);
Assignment assignment_from_text(std::string_view text);
std::string to_text(const Done& d);
Done done_from_text(std::string_view text);

}  // namespace dtb::mpi
