import Foundation
import ResultOperations
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLSession, HTTPURLResponse and URLError on Linux
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// What a real URLSession answers — the answers LocalURLSession gives the post's operations and
// URLSessionWeb reads — asked of a server on 127.0.0.1 that this test runs (no network): a plain
// response for a redirect without a target and for a missing page, an error for a redirect loop
// and for a cancelled task.
// Verified on Linux; on Darwin not yet run.
#if os(macOS) || os(Linux)
    @Suite("Chapter 6 — what URLSession answers, asked of a local server")
    struct URLSessionAnswersTests {
        @Test(
            "a 301 without Location and a 404: a plain response for the URL asked, no error; URLSessionWeb reads them")
        func redirectWithoutTargetAndMissingPage() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }

            let redirect = server.url("/redirect-without-location")
            let redirected = try #require(await head(redirect, with: session), "no answer within 20 s")
            #expect(redirected.error == nil, "\(String(describing: redirected.error))")
            #expect((redirected.response as? HTTPURLResponse)?.statusCode == 301)
            #expect(redirected.response?.url == redirect)
            guard case .success(nil) = URLSessionWeb.headAnswer(response: redirected.response, error: redirected.error)
            else {
                Issue.record("URLSessionWeb did not read the 301 as a redirect without a target")
                return
            }

            let missing = server.url("/missing")
            let notFound = try #require(await head(missing, with: session), "no answer within 20 s")
            #expect(notFound.error == nil, "\(String(describing: notFound.error))")
            #expect((notFound.response as? HTTPURLResponse)?.statusCode == 404)
            #expect(notFound.response?.url == missing)
            let read = URLSessionWeb.headAnswer(response: notFound.response, error: notFound.error)
            guard case .failure(let error as HTTPStatusError) = read else {
                Issue.record("URLSessionWeb read the 404 as \(read), not an HTTPStatusError")
                return
            }
            #expect(error == HTTPStatusError(statusCode: 404, url: missing))
        }

        @Test("cancel() while the server holds the request: the completion handler gets URLError.cancelled")
        func cancelledTask() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }

            let answered = Flag()
            let answer = Answer()
            var request = URLRequest(url: server.url("/silent"))
            request.httpMethod = "HEAD"
            let task = session.dataTask(with: request) { _, response, error in
                answer.set(response: response, error: error)
                answered.raise()
            }
            task.resume()
            #expect(await server.silentRequestArrived.wait(seconds: 20), "the request never reached the server")
            #expect(!answered.isRaised, "answered before it was cancelled")
            task.cancel()
            #expect(await answered.wait(seconds: 20), "no answer within 20 s of cancel()")
            #expect((answer.error as? URLError)?.code == .cancelled, "\(String(describing: answer.error))")
        }

        @Test("a redirect loop: no response, the error URLError.httpTooManyRedirects")
        func redirectLoop() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }

            let loop = try #require(await head(server.url("/loop"), with: session), "no answer within 20 s")
            #expect((loop.error as? URLError)?.code == .httpTooManyRedirects, "\(String(describing: loop.error))")
            #expect(loop.response == nil)
            #if os(Linux)
                // It followed 20 redirects (the request, then 20 more). Darwin: Apple documents
                // a threshold of 16 (`URLError.httpTooManyRedirects`); not yet run on a Mac.
                #expect(server.loopRequests == 21)
            #endif
        }
    }

    /// One data task's answer, set once by its completion handler.
    private final class Answer: @unchecked Sendable {
        // @unchecked Sendable: `stored` is read and written only under `state`.
        private let state = NSLock()
        private var stored: (response: URLResponse?, error: (any Error)?) = (nil, nil)

        func set(response: URLResponse?, error: (any Error)?) { state.withLock { stored = (response, error) } }
        var response: URLResponse? { state.withLock { stored.response } }
        var error: (any Error)? { state.withLock { stored.error } }
    }

    /// A HEAD request's answer, or nil if none came within 20 s.
    private func head(_ url: URL, with session: URLSession) async -> Answer? {
        let answered = Flag()
        let answer = Answer()
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"
        session.dataTask(with: request) { _, response, error in
            answer.set(response: response, error: error)
            answered.raise()
        }.resume()
        return await answered.wait(seconds: 20) ? answer : nil
    }

    /// An HTTP/1.1 server on 127.0.0.1, on a thread of its own, that answers by path: a 301
    /// without a `Location` for "/redirect-without-location", a 404 for "/missing", a 301 back to
    /// itself for "/loop", and nothing for "/silent" (it holds the connection open until `stop()`).
    private final class LoopbackServer: @unchecked Sendable {
        // @unchecked Sendable: `listener` and `port` never change after init; `held`,
        // `stopping` and `loops` are touched only under `lock`.
        let port: UInt16
        let silentRequestArrived = Flag()
        /// How many requests for "/loop" arrived: the redirects a client followed, plus one.
        var loopRequests: Int { lock.withLock { loops } }
        private let listener: Int32
        private let lock = NSLock()
        private var held: [Int32] = []
        private var stopping = false
        private var loops = 0

        init() throws {
            #if canImport(Glibc)
                let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let listener = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard listener >= 0 else { throw TranscriptError("socket() failed") }
            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0  // any free port
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, length) == 0 && listen(listener, 8) == 0
                        && getsockname(listener, $0, &length) == 0
                }
            }
            guard bound else {
                close(listener)
                throw TranscriptError("cannot listen on 127.0.0.1")
            }
            self.listener = listener
            port = UInt16(bigEndian: address.sin_port)
            Thread { [self] in serve() }.start()
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

        /// Ends the accepting thread and closes the connections it holds.
        func stop() {
            let connections = lock.withLock {
                stopping = true
                defer { held = [] }
                return held
            }
            for connection in connections { close(connection) }
            // One connection of its own, so that accept() returns and the thread sees `stopping`.
            #if canImport(Glibc)
                let waker = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let waker = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(waker, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(waker)
        }

        private func serve() {
            while true {
                let connection = accept(listener, nil, nil)
                if lock.withLock({ stopping }) || connection < 0 {
                    if connection >= 0 { close(connection) }
                    close(listener)
                    return
                }
                let path = requestPath(connection)
                switch path {
                case "/redirect-without-location":
                    send(
                        "HTTP/1.1 301 Moved Permanently\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        to: connection)
                case "/missing":
                    send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", to: connection)
                case "/loop":
                    lock.withLock { loops += 1 }
                    send(
                        "HTTP/1.1 301 Moved Permanently\r\nLocation: /loop\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        to: connection)
                default:
                    lock.withLock { held.append(connection) }
                    silentRequestArrived.raise()
                    continue
                }
                close(connection)
            }
        }

        /// Reads a request's head and returns the path of its first line.
        private func requestPath(_ connection: Int32) -> String {
            var head = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 1024)
            while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                head += buffer[0..<count]
            }
            let firstLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
            let words = firstLine.split(separator: " ")
            return words.count > 1 ? String(words[1]) : ""
        }

        private func send(_ text: String, to connection: Int32) {
            let bytes = Array(text.utf8)
            #if canImport(Glibc)
                _ = Glibc.send(connection, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            #else
                _ = Darwin.send(connection, bytes, bytes.count, 0)
            #endif
        }
    }
#endif
