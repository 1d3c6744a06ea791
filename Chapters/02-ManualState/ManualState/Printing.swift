import Recording

/// `print` in this module: Swift's own `print`, which the posts' code calls as the posts do. In
/// a recorded run (`--timeline`, for the chapter's pictures) the recorder also notes each line;
/// otherwise this is exactly `Swift.print`.
func print(_ line: String) {
    guard let recorder = Recorder.current else { return Swift.print(line) }
    recorder.printed(line) { Swift.print($0) }
}
