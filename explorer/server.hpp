// `dtb serve`: the explorer page and its JSON API over HTTP (cpp-httplib),
// many clients at once on a pool of threads.
//
//   GET /                                 the explorer page (explorer/page/)
//   GET /api/probe?variant=V&fen=FEN      Explorer::probe
//   GET /api/stats?variant=V&material=M   Explorer::stats
//   GET /api/variants                     Explorer::variant_list
#pragma once

#include <memory>
#include <string>

namespace dtb::explorer {

class Explorer;

struct ServeOptions {
    std::string host = "127.0.0.1";
    int port = 8080;  // 0: any free port (bind() says which)
    int threads = 0;  // request threads; 0: 8, or more on a machine with more cores
};

class Server {
public:
    Server(const Explorer& explorer, ServeOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Binds the address; returns the port. Throws std::runtime_error naming
    // the address if it cannot.
    int bind();
    // Serves until stop(), from any thread. Returns false if serving failed.
    bool run();
    void stop();

private:
    struct Http;
    std::unique_ptr<Http> http_;
    ServeOptions options_;
};

}  // namespace dtb::explorer
