import Foundation

/// The learner's terminal: output written at once, single keys read without Enter (in
/// `watch`), the screen cleared for a redraw. Works, more plainly, when the output or the
/// input is not a terminal (a pipe, CI).
final class Terminal {
    let isInteractive = isatty(STDOUT_FILENO) == 1
    let readsKeys = isatty(STDIN_FILENO) == 1
    private var original: termios?

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func say(_ line: String = "") {
        write(line + "\n")
    }

    func say(_ lines: [String]) {
        write(lines.map { $0 + "\n" }.joined())
    }

    /// Overwrites the current line (a status that changes in place; short enough for any
    /// terminal); nothing when the output is not a terminal.
    func status(_ text: String) {
        guard isInteractive else { return }
        write("\r\u{1B}[K" + String(text.prefix(70)))
    }

    func clearStatus() { status("") }

    /// Clears the screen and its scrollback, for a redraw; a separator when not a terminal.
    func clearScreen() {
        if isInteractive {
            write("\u{1B}[2J\u{1B}[3J\u{1B}[H")
        } else {
            say("\n" + String(repeating: "=", count: 72))
        }
    }

    /// Keys arrive one at a time, unechoed; Ctrl-C still interrupts.
    func startReadingKeys() {
        guard readsKeys, original == nil else { return }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        original = settings
        settings.c_lflag &= ~(tcflag_t(ICANON) | tcflag_t(ECHO))
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    func stopReadingKeys() {
        guard var settings = original else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        original = nil
    }

    /// A key, if one is pressed within `milliseconds`; at the end of the input, "q".
    func key(within milliseconds: Int32) -> Character? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var byte: UInt8 = 0
        let count = read(STDIN_FILENO, &byte, 1)
        if count <= 0 { return "q" }
        return Character(Unicode.Scalar(byte))
    }

    deinit { stopReadingKeys() }
}

/// Set when the learner presses Ctrl-C (or the runner is told to stop): every loop that
/// waits checks it, stops what it started, and ends.
final class Interruption: @unchecked Sendable {
    // @unchecked Sendable: `raised` is only read and written under `lock`.
    private let lock = NSLock()
    private var raised = false
    private var sources: [any DispatchSourceSignal] = []

    var isRaised: Bool { lock.withLock { raised } }

    /// Takes over SIGINT, SIGTERM and SIGHUP: instead of ending the runner at once (its
    /// children, in their own process groups, would live on), they raise the flag.
    func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in lock.withLock { raised = true } }
            source.resume()
            sources.append(source)
        }
    }
}
