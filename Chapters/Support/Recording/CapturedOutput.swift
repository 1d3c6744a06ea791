#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The program's standard output, read through a pipe while a run is recorded: what the
/// program prints goes into the pipe, and the recorder reads it back, line by line, and passes
/// every byte on to the real standard output.
///
/// Nothing reads the pipe in the background: the recorder reads it before it records anything,
/// so a printed line takes its place among the events exactly. A program that printed more
/// than a pipe holds (64 KiB on Linux) between two events would wait until the next one; the
/// chapters print a few hundred bytes. (Only touched under the recorder's lock.)
final class CapturedOutput {
    /// The real standard output, where everything read is passed on.
    private let original: Int32
    /// The pipe's end that the recorder reads, never blocking.
    private let reading: Int32
    /// The start of a line whose end has not been printed yet.
    private var partial: [UInt8] = []

    init() {
        fflush(nil)  // what is buffered so far belongs to the real output
        original = dup(STDOUT_FILENO)
        var ends: [Int32] = [0, 0]
        guard original >= 0, pipe(&ends) == 0 else { fatalError("cannot capture the standard output") }
        dup2(ends[1], STDOUT_FILENO)
        close(ends[1])
        reading = ends[0]
        _ = fcntl(reading, F_SETFL, fcntl(reading, F_GETFL) | O_NONBLOCK)
    }

    /// The lines printed since the last call, complete ones only; every byte read is passed on.
    func readLines() -> [String] {
        fflush(nil)  // nil: every output stream; `stdout` itself is a global var Swift 6 rejects
        var chunk = [UInt8](repeating: 0, count: 4096)
        var read = 0
        repeat {
            read = chunk.withUnsafeMutableBytes { bytes in
                #if canImport(Glibc)
                    Glibc.read(reading, bytes.baseAddress, bytes.count)
                #else
                    Darwin.read(reading, bytes.baseAddress, bytes.count)
                #endif
            }
            if read > 0 {
                passOn(chunk[..<read])
                partial += chunk[..<read]
            }
        } while read > 0 || (read < 0 && errno == EINTR)
        var lines: [String] = []
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partial[..<newline], as: UTF8.self))
            partial.removeSubrange(...newline)
        }
        return lines
    }

    /// Writes `line` and a line break to the real standard output.
    func write(_ line: String) {
        passOn(Array((line + "\n").utf8)[...])
    }

    /// Reads what is left (a line without its end is passed on, not recorded), and makes the
    /// real standard output the program's again.
    func release() {
        _ = readLines()
        dup2(original, STDOUT_FILENO)
        close(original)
        close(reading)
    }

    private func passOn(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(original, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(original, buffer.baseAddress, buffer.count)
                #endif
            }
            if written > 0 {
                rest = rest.dropFirst(written)
            } else if written < 0 && errno != EINTR {
                return  // the reader went away: nothing more to do
            }
        }
    }
}
