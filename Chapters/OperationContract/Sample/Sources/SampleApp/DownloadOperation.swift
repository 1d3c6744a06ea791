import Foundation

/// What the app downloads with: its network client, or a stand-in in tests.
nonisolated public protocol Downloader: Sendable {
    /// Starts a download, which calls `completion` once: with the data, or nil if it failed or
    /// was cancelled.
    func download(completion: @escaping @Sendable (Data?) -> Void) -> any DownloadTask
}

/// A download under way.
nonisolated public protocol DownloadTask: Sendable {
    /// Stops the download; it still calls its completion, with nil.
    func cancel()
}

/// Why a download ended without data.
nonisolated public enum DownloadError: Error, Equatable, Sendable {
    case cancelled
    case failed
}

/// Downloads with the app's `Downloader`, and keeps what came back in `result`.
nonisolated public final class DownloadOperation: AppOperation, @unchecked Sendable {
    // @unchecked Sendable: `downloader` is a constant; `received` and `stored` are only
    // touched under `lock`.
    private let downloader: any Downloader
    private let lock = NSLock()
    private var received: Data?
    private var stored: Result<Data, DownloadError>?

    public init(using downloader: any Downloader) {
        self.downloader = downloader
    }

    /// The data, or why there is none; nil until the operation has finished.
    public var result: Result<Data, DownloadError>? { lock.withLock { stored } }

    public override func main() {
        let task = downloader.download { data in
            self.lock.withLock { self.received = data }
            self.finish()
        }
        whenCancelled { task.cancel() }
    }

    /// Records the result once `isCancelled` is final, just before the finish is announced.
    public override func willFinish() {
        let cancelled = isCancelled
        lock.withLock {
            if cancelled {
                stored = .failure(.cancelled)
            } else if let received {
                stored = .success(received)
            } else {
                stored = .failure(.failed)
            }
        }
    }
}
