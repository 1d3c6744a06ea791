import Foundation
import ResultOperations
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking  // HTTPURLResponse and URLError on Linux
#endif

// URLSession answers a redirect without a target and a missing page with a plain response
// (301 or 404, no error: URLSessionAnswersTests, Linux). URLSessionWeb reads
// those answers the way LocalWeb gives them, so that the package's operations end the same on
// a real network as in the chapters. No network here: the responses are made by the test.

private let shortURL = URL(string: "https://short.example/ops")!
private let longURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!

private func response(_ status: Int, for url: URL) -> HTTPURLResponse? {
    HTTPURLResponse(url: url, statusCode: status, httpVersion: nil, headerFields: nil)
}

@Suite("Chapter 6 — URLSessionWeb reads URLSession's answers as LocalWeb gives them")
struct URLSessionWebTests {
    @Test("HEAD: a 2xx ends at its URL; a 3xx, a redirect URLSession could not follow, at nil; others fail")
    func headAnswers() {
        let found = URLSessionWeb.headAnswer(response: response(200, for: longURL), error: nil)
        #expect((try? found.get()) == .some(longURL))

        for status in [301, 302, 307, 308] {
            let noTarget = URLSessionWeb.headAnswer(response: response(status, for: shortURL), error: nil)
            guard case .success(nil) = noTarget else {
                Issue.record("status \(status): \(noTarget), not a redirect without a target")
                continue
            }
        }

        let missing = URLSessionWeb.headAnswer(response: response(404, for: shortURL), error: nil)
        guard case .failure(let error as HTTPStatusError) = missing else {
            Issue.record("status 404: \(missing), not an HTTPStatusError")
            return
        }
        #expect(error == HTTPStatusError(statusCode: 404, url: shortURL))

        let failed = URLSessionWeb.headAnswer(response: nil, error: URLError(.timedOut))
        guard case .failure(let urlError as URLError) = failed else {
            Issue.record("an error: \(failed), not that error")
            return
        }
        #expect(urlError.code == .timedOut)
    }

    @Test("GET: a 2xx is the page; any other status fails, a 404's error page too")
    func getAnswers() {
        let page = URLSessionWeb.getAnswer(
            data: Data("<title>Found</title>".utf8), response: response(200, for: longURL), error: nil)
        #expect((try? page.get()) == "<title>Found</title>")

        for status in [301, 404, 500] {
            let answer = URLSessionWeb.getAnswer(
                data: Data("an error page".utf8), response: response(status, for: longURL), error: nil)
            guard case .failure(let error as HTTPStatusError) = answer else {
                Issue.record("status \(status): \(answer), not an HTTPStatusError")
                continue
            }
            #expect(error.statusCode == status)
        }
    }
}
