// `dtb serve`: the tables of every variant in DIR over HTTP (issue 16,
// explorer/server.hpp), until interrupted (Ctrl-C, SIGTERM).
#include <csignal>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <pthread.h>

#include "cli/commands.hpp"
#include "explorer/explorer.hpp"
#include "explorer/server.hpp"

namespace dtb::cli {

void run_serve(const ServeCommandOptions& o) {
    // The signals that end the server go to one thread that waits for them,
    // not to whichever thread they hit: it stops the server cleanly.
    sigset_t ending;
    sigemptyset(&ending);
    sigaddset(&ending, SIGINT);
    sigaddset(&ending, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &ending, nullptr);  // inherited by every thread made from here on

    const explorer::Explorer tables(o.dir);
    explorer::Server server(tables, o.serve);
    const int port = server.bind();
    std::string variants;
    for (const auto& v : tables.variants()) variants += (variants.empty() ? "" : ", ") + v;
    fmt::print("dtb serve: http://{}:{}/ ({} from {}); Ctrl-C stops it\n", o.serve.host, port, variants, o.dir);
    std::fflush(stdout);
    std::thread waiter([&] {
        int signal = 0;
        sigwait(&ending, &signal);
        server.stop();
    });
    const bool served = server.run();
    if (!served) pthread_kill(waiter.native_handle(), SIGTERM);  // the waiter still waits: end it
    waiter.join();
    if (!served) throw std::runtime_error("the server stopped on an error while listening on port " + std::to_string(port));
    fmt::print("dtb serve: stopped\n");
}

}  // namespace dtb::cli
