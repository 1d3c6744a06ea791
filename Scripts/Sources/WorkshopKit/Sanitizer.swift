/// A data race that ThreadSanitizer reported: two accesses to the same memory from two
/// threads, at least one a write, with nothing that orders them.
public struct DataRace: Equatable, Sendable {
    public struct Access: Equatable, Sendable {
        /// A write ("Write of size 8", "Previous modifying access"), or a read.
        public var isWrite: Bool
        /// The frames of the access, innermost first: function, file and line.
        public var frames: [Backtrace.Frame]

        public init(isWrite: Bool, frames: [Backtrace.Frame]) {
            self.isWrite = isWrite
            self.frames = frames
        }

        /// The innermost frame in `file` (an absolute path, or its end), else the innermost
        /// frame with a file.
        public func place(preferring file: String) -> Backtrace.Frame? {
            frames.first { $0.file.map { Backtrace.isSameFile($0, as: file) } ?? false }
                ?? frames.first { $0.file != nil }
        }
    }

    public var accesses: [Access]

    public init(accesses: [Access]) {
        self.accesses = accesses
    }

    /// The data races in a run's output, in the order reported.
    public static func reports(in console: String) -> [DataRace] {
        var races: [DataRace] = []
        var current: [Access]?
        for line in console.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            // "data race", or "Swift access race" (two accesses that break Swift's exclusivity).
            if text.hasPrefix("WARNING: ThreadSanitizer:"), text.contains("data race") || text.contains("access race") {
                if let current { races.append(DataRace(accesses: current)) }
                current = []
                continue
            }
            guard current != nil else { continue }
            if text.hasPrefix("SUMMARY: ThreadSanitizer") {
                races.append(DataRace(accesses: current!))
                current = nil
            } else if Self.isAccessHeader(text) {
                // "Write of size 8" of "Write of size 8 at 0x… by thread T2 (mutexes: write M0):".
                let kind = text.components(separatedBy: " at ")[0].lowercased()
                current?.append(Access(isWrite: kind.contains("write") || kind.contains("modifying"), frames: []))
            } else if text.hasPrefix("#"), let frame = Self.frame(text), !(current?.isEmpty ?? true) {
                // Only the frames of an access (the frames of "Thread T2 … created at" are not).
                if let count = current?.count, count <= 2 { current?[count - 1].frames.append(frame) }
            } else if text.hasPrefix("Thread T") || text.hasPrefix("Location is") || text.hasPrefix("Mutex") {
                // What follows describes threads and memory, not an access: stop collecting.
                if let accesses = current, accesses.count >= 2 {
                    races.append(DataRace(accesses: accesses))
                    current = nil
                }
            }
        }
        if let current, !current.isEmpty { races.append(DataRace(accesses: current)) }
        return races
    }

    /// "Write of size 8 at 0x… by thread T2:", "Previous read of size 1 at … by main thread:",
    /// "Previous modifying access of Swift variable at 0x… by thread T16:".
    static func isAccessHeader(_ text: String) -> Bool {
        let lower = text.lowercased()
        let kinds = ["write of", "read of", "atomic write of", "atomic read of", "modifying access", "read access"]
        let kind = kinds.contains { lower.hasPrefix($0) || lower.hasPrefix("previous " + $0) }
        return kind && text.contains(" at ") && text.contains(" by ") && text.hasSuffix(":")
    }

    /// "#0 $s9Exercise116WaitingOperationC4mainyyF /path/WaitingOperation.swift:30:16
    /// (Binary+0x123dba) (BuildId: 75a8…)": the function (as ThreadSanitizer names it, mangled
    /// for Swift), its file and line when it has them, and its binary.
    public static func frame(_ text: String) -> Backtrace.Frame? {
        var words = text.split(separator: " ").map(String.init)
        guard words.count >= 2, words[0].hasPrefix("#") else { return nil }
        words.removeFirst()
        // "(BuildId: …)" at the end says nothing here.
        if let build = words.firstIndex(of: "(BuildId:") { words.removeSubrange(build...) }
        var image: String?
        if let last = words.last, last.hasPrefix("("), last.hasSuffix(")") {
            image = last.dropFirst().dropLast().split(separator: "+").first.map(String.init)
            words.removeLast()
        }
        // The location, when there is one: "/path/File.swift:30:16" (on Darwin the file's name
        // alone), or a C file without a line, or "<null>".
        var file: String?
        var line: Int?
        if words.count >= 2, let last = words.last {
            let parts = last.split(separator: ":")
            if parts.count >= 2, parts[0].contains("."), let number = Int(parts[1]) {
                file = String(parts[0])
                line = number
                words.removeLast()
            } else if last.hasPrefix("/") || last == "<null>" || last.hasSuffix(".c") || last.hasSuffix(".cpp") {
                words.removeLast()
            }
        }
        return Backtrace.Frame(function: words.joined(separator: " "), image: image, file: file, line: line)
    }

    /// The same races with Swift's names readable ("closure #1 in WaitingOperation.main()"):
    /// ThreadSanitizer prints them mangled. `demangle` turns mangled names into readable ones.
    public func demangled(_ demangle: ([String]) -> [String: String]) -> DataRace {
        let names = accesses.flatMap { $0.frames.map(\.function) }.filter(Self.isMangled)
        guard !names.isEmpty else { return self }
        let readable = demangle(Array(Set(names)))
        var race = self
        for access in race.accesses.indices {
            for frame in race.accesses[access].frames.indices {
                let name = race.accesses[access].frames[frame].function
                if let better = readable[name] { race.accesses[access].frames[frame].function = better }
            }
        }
        return race
    }

    /// Whether this is ThreadSanitizer's known false report of Swift's `Mutex` on Linux, which
    /// hands a contended lock over inside the kernel, unseen (Chapters/Workshop/README.md, "`Mutex`
    /// on Linux"): each of the two accesses' innermost frame in a workshop file is at a line that
    /// calls `withLock`, in a file that imports Synchronization — the closure given to it was
    /// inlined there, and no frame of Synchronization shows — or is that closure, called with no
    /// frame between by the function around it, at such a line. `source` reads a file.
    public func isMutexHandOff(source: (String) -> String?) -> Bool {
        func callsWithLock(_ frame: Backtrace.Frame) -> Bool {
            guard let file = frame.file, let line = frame.line,
                let lines = source(file)?.split(separator: "\n", omittingEmptySubsequences: false)
            else { return false }
            return lines.contains { $0.hasPrefix("import Synchronization") } && line <= lines.count
                && lines[line - 1].contains("withLock")
        }
        return accesses.count >= 2
            && accesses.prefix(2).allSatisfy { access in
                guard let index = access.frames.firstIndex(where: { $0.file?.contains("/Chapters/Workshop/") == true })
                else { return false }
                let call = access.frames[index]
                if callsWithLock(call) { return true }
                guard call.function.hasPrefix("closure #"), index + 1 < access.frames.count else { return false }
                let caller = access.frames[index + 1]
                return caller.file == call.file && call.function.hasSuffix(" in " + caller.function)
                    && callsWithLock(caller)
            }
    }

    static func isMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S")
    }

    /// What `swift demangle --simplified A B …` printed ("A ---> readable A"), as a table.
    public static func demangledNames(in output: String) -> [String: String] {
        var names: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let arrow = line.range(of: " ---> ") else { continue }
            names[String(line[..<arrow.lowerBound])] = String(line[arrow.upperBound...])
        }
        return names
    }
}
