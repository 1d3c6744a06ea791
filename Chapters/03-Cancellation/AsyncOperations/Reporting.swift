#if !WITHOUT_RECORDING
    import Recording
#endif

// What the base operation tells the recorder of the chapters' pictures (`Recording`, off unless a
// chapter runs with `--timeline`): each report is one load and one branch when it is off.
// The benchmark compiles this module a second time with WITHOUT_RECORDING, where every report
// is empty, to measure that cost against nothing (Chapters/MEASUREMENTS.md).
extension AsyncOperation {
    /// At creation: the operation's lane, in the order operations are made.
    func reportCreated() {
        #if !WITHOUT_RECORDING
            Recorder.current?.register(self)
        #endif
    }

    /// `start()` was called.
    func reportStart() {
        #if !WITHOUT_RECORDING
            Recorder.current?.record(.start, self, after: dependencies)
        #endif
    }

    /// The state became executing (`true`) or finished (`false`); Foundation is not told yet.
    func reportState(executing: Bool) {
        #if !WITHOUT_RECORDING
            Recorder.current?.record(executing ? .executing : .finished, self)
        #endif
    }

    /// A `cancel()` took effect.
    func reportCancelled() {
        #if !WITHOUT_RECORDING
            Recorder.current?.record(.cancelled, self)
        #endif
    }

    /// Runs `main()`, with what it prints drawn in this operation's lane.
    func runMain() {
        #if !WITHOUT_RECORDING
            if let recorder = Recorder.current { return recorder.withLane(of: self) { main() } }
        #endif
        main()
    }
}
