import Foundation

/// Where a crash happened, from the crash report that Swift's runtime writes when the runner
/// turns its backtracer on (`SWIFT_BACKTRACE=…,format=json,output-to=<folder>`): the frames of
/// the thread that crashed, innermost first, each with its function and, where the runtime
/// knows it, its file and line.
public struct Backtrace: Equatable, Sendable {
    public struct Frame: Equatable, Sendable, Decodable {
        /// "NSCondition.wait(until:)", "closure #1 in WaitingOperation.main()".
        public var function: String
        /// The binary it is in: "libFoundation.so", "WorkshopPackageTests.xctest".
        public var image: String?
        public var file: String?
        public var line: Int?

        public init(function: String, image: String? = nil, file: String? = nil, line: Int? = nil) {
            (self.function, self.image, self.file, self.line) = (function, image, file, line)
        }

        /// The library's name as a learner knows it: "Foundation", "libdispatch (Dispatch)".
        public var libraryName: String? {
            let image = image ?? ""
            if ["libFoundation", "Foundation", "libCoreFoundation", "CoreFoundation"].contains(where: image.hasPrefix) {
                return "Foundation"
            }
            return ["libdispatch", "libswiftDispatch"].contains(where: image.hasPrefix) ? "libdispatch (Dispatch)" : nil
        }

        /// Frames of the runtime and the standard library that only report the crash.
        var isRuntime: Bool {
            let image = image ?? "libswiftCore"
            return ["libswiftCore", "libswift_Concurrency", "libc.", "libc-", "libsystem", "libpthread"].contains(
                where: image.hasPrefix)
                || ["$", "_assertionFailure", "swift_", "Swift."].contains(where: function.hasPrefix)
        }

        /// A frame of the runtime's report: "NSCondition.wait(until:) + 227" (the function, and
        /// its offset, left out), its image, and its source location.
        public init(from decoder: any Decoder) throws {
            struct Raw: Decodable {
                var description: String?
                var symbol: String?
                var image: String?
                var sourceLocation: Location?
                struct Location: Decodable {
                    var file: String?
                    var line: Int?
                }
            }
            let raw = try Raw(from: decoder)
            var function = raw.description ?? raw.symbol ?? "?"
            if let plus = function.range(of: " + ", options: .backwards) {
                function = String(function[..<plus.lowerBound])
            }
            self.init(
                function: function, image: raw.image, file: raw.sourceLocation?.file, line: raw.sourceLocation?.line)
        }
    }

    public var frames: [Frame]

    /// The innermost frame that is not the runtime reporting the crash: where it happened.
    public var crashFrame: Frame? {
        frames.first { !$0.isRuntime } ?? frames.first
    }

    /// The innermost frame in `file` (an absolute path), if any.
    public func frame(inFile file: String) -> Frame? {
        frames.first { frame in frame.file.map { Self.isSameFile($0, as: file) } ?? false }
    }

    /// Whether a frame's file is `path`: the same path; or, in another copy of the repository
    /// (verify's, a recorded run's), the same path from Chapters/Workshop/ on; or, where only
    /// the file's name is given (ThreadSanitizer on Darwin), the same name.
    public static func isSameFile(_ file: String, as path: String) -> Bool {
        if file == path { return true }
        if !file.contains("/") { return file == URL(fileURLWithPath: path).lastPathComponent }
        let marker = "/Chapters/Workshop/"
        guard let mine = file.range(of: marker), let theirs = path.range(of: marker) else { return false }
        return file[mine.upperBound...] == path[theirs.upperBound...]
    }

    /// Reads a crash report (JSON): the crashed thread's frames; nil if it is not one.
    public init?(json: Data) {
        struct Report: Decodable {
            var threads: [Thread]?
            struct Thread: Decodable {
                var crashed: Bool?
                var frames: [Frame]?
            }
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: json),
            let thread = report.threads?.first(where: { $0.crashed == true }) ?? report.threads?.first
        else { return nil }
        frames = thread.frames ?? []
    }

    /// The crash report in `folder` written by process `pid`; when `pid` is not known, the
    /// one of the process that started first (the test binary, before the children its exit
    /// tests start, which may crash on purpose). Reports are named "<binary>-<pid>-<n>.json".
    public static func report(in folder: URL, pid: Int32?) -> Backtrace? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let reports = names.filter { $0.hasSuffix(".json") }.compactMap { name -> (Int32, String)? in
            let parts = name.dropLast(".json".count).split(separator: "-")
            return parts.count >= 3 ? Int32(parts[parts.count - 2]).map { ($0, name) } : nil
        }
        let chosen = pid.map { wanted in reports.last { $0.0 == wanted } } ?? reports.min { $0.0 < $1.0 }
        return chosen.flatMap {
            (try? Data(contentsOf: folder.appendingPathComponent($0.1))).flatMap(Backtrace.init(json:))
        }
    }
}
