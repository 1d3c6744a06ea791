import AsyncOperations  // Locked, the lock chapter 3's base comes with
import Foundation

/// What a check concluded, and the first run it concluded it from (the second, if that one
/// decided).
public typealias Checked = (judgement: Judgement, observation: RunObservation)

/// How a check confirms a pass: the tests once more, or once more under ThreadSanitizer.
public enum Confirmation: String, Sendable {
    case again
    case raceDetector
}

/// Where checks build (plainly, and under ThreadSanitizer) and keep their runs: a folder of
/// the learner's repository, or of a copy of it.
public struct CheckPlace: Sendable {
    public let workshop: Workshop
    public let folder: URL
    public var raceScratch: URL { folder.appendingPathComponent("build-tsan") }

    public init(workshop: Workshop, folder: URL) {
        self.workshop = workshop
        self.folder = folder
    }
}

/// A check of exercise `number`: its tests, without the contract kit's suite; when they
/// pass, a second run confirms it, every suite included — under ThreadSanitizer for an
/// exercise about shared state (one with a Race.md), else the same tests again. A pass
/// counts only when both pass: a wrong answer that passes now and then must pass twice in
/// a row, and a race that the tests' timing missed is reported by the detector.
///
/// With `overlapping`, the race detector's run (its own build folder) starts at once,
/// beside the first, and is stopped if the first fails: a right answer waits for the longer
/// of the two runs rather than for both. Its tests are shown (`confirmationObserver`) only
/// once the first run has passed; `confirming` hears that the second run's results come.
public func check(
    _ number: Int, at place: CheckPlace, limits: Limits, observer: RunObserver, overlapping: Bool = false,
    confirming: (Confirmation) -> Void = { _ in }, confirmationObserver: RunObserver? = nil
) throws -> Checked {
    let exercise = place.workshop.exercise(number)!
    var first = TestRequest(
        package: place.workshop.package, scratch: place.folder.appendingPathComponent("build"), only: [number],
        folder: place.folder.appendingPathComponent("runs/check"))
    first.skip = [exercise.contractSuite]
    var second = first
    second.skip = []
    var secondLimits = limits
    let confirmation: Confirmation = exercise.checksForRaces ? .raceDetector : .again
    if exercise.checksForRaces {
        second.threadSanitizer = true
        second.scratch = place.raceScratch
        second.folder = place.folder.appendingPathComponent("runs/race-detector")
        secondLimits.tests *= 3  // everything runs several times slower under ThreadSanitizer
    } else {
        second.skipBuild = true
        second.folder = place.folder.appendingPathComponent("runs/again")
    }
    let shown = confirmationObserver ?? observer
    var early: Background<Result<RunObservation, any Error>>?
    let stopEarly = Locked(false)
    let heldBack = Locked<[RunLog.Happening]>([])
    if overlapping, exercise.checksForRaces {
        var background = RunObserver()
        background.started = shown.started
        background.happened = { happening in heldBack.withLock { $0.append(happening) } }
        background.shouldStop = { stopEarly.withLock { $0 } }
        early = Background { [second, secondLimits] in
            Result { try runTests(second, limits: secondLimits, observer: background) }
        }
    }
    let firstRun = try runTests(first, limits: limits, observer: observer)
    let judgement = Judgement(firstRun)
    guard !firstRun.interrupted, firstRun.endedFromOutside == nil, judgement.verdict == .passes else {
        stopEarly.withLock { $0 = true }
        _ = early?.wait()
        return (judgement, firstRun)
    }
    confirming(confirmation)
    var secondRun: RunObservation
    if let early {
        // Shows what the run held back, then what it sees, until it ends.
        while true {
            let outcome = early.result
            let taken = heldBack.withLock { held in
                defer { held = [] }
                return held
            }
            for happening in taken { shown.happened(happening) }
            if let outcome {
                secondRun = try outcome.get()
                break
            }
            if shown.shouldStop() { stopEarly.withLock { $0 = true } }
            usleep(50_000)
        }
    } else {
        secondRun = try runTests(second, limits: secondLimits, observer: shown)
    }
    var confirmed = Judgement(secondRun)
    guard !secondRun.interrupted, secondRun.endedFromOutside == nil else { return (confirmed, secondRun) }
    guard confirmed.verdict == .passes else {
        confirmed.failedConfirmation = confirmation
        return (confirmed, secondRun)
    }
    var passed = judgement
    passed.confirmedBy = confirmation
    passed.confirmationCount = confirmed.passedCount
    passed.mutexReportsSetAside = secondRun.mutexReportsSetAside
    return (passed, firstRun)
}

/// Copies of the repository, each with its own builds, in which `verify` and `mutants` put
/// versions of an exercise's file and check each as `check` does: one version per copy at a
/// time, so that each check rebuilds only that exercise.
public struct Copies: Sendable {
    public let places: [CheckPlace]

    /// Makes `count` copies of `workshop`'s repository in `folder`, writing only what changed
    /// since the last time (so that their builds stay incremental).
    public init(of workshop: Workshop, in folder: URL, count: Int = 2) throws {
        places = try (1...count).map { number in
            let copy = folder.appendingPathComponent("copy\(number)")
            try Self.mirror(workshop.root, to: copy.appendingPathComponent("playground"))
            return CheckPlace(workshop: try Workshop(root: copy.appendingPathComponent("playground")), folder: copy)
        }
    }

    /// Checks each version (an exercise's number and its file's text), one per copy at a
    /// time; `done` hears each version's index and outcome as it comes, on the copy's
    /// thread, with the copy whose `runs` folder still holds that check's runs. Returns the
    /// outcomes, nil for those not begun when `observer` said stop.
    @discardableResult
    public func check(
        _ versions: [(number: Int, source: String)], limits: Limits, observer: RunObserver,
        done: @escaping (Int, Result<Checked, any Error>, CheckPlace) -> Void = { _, _, _ in }
    ) -> [Result<Checked, any Error>?] {
        let outcomes = Locked([Result<Checked, any Error>?](repeating: nil, count: versions.count))
        runConcurrently(versions.count, width: places.count) { lane, index in
            guard !observer.shouldStop() else { return }
            let (number, source) = versions[index]
            let outcome = Result {
                try Self.writeInASecondOfItsOwn(Data(source.utf8), to: places[lane].workshop.exercise(number)!.file)
                return try WorkshopKit.check(number, at: places[lane], limits: limits, observer: observer)
            }
            outcomes.withLock { $0[index] = outcome }
            done(index, outcome, places[lane])
        }
        return outcomes.withLock { $0 }
    }

    /// Writes `data` to `file` so that the file's date falls in a later second than the moment
    /// of the call.
    ///
    /// The build tells a changed file by its date in whole seconds: a version written in the
    /// second in which the last build ended is taken for that one, and the check judges the old
    /// version (seen: 4 of 185 in one verify). Waiting for the next second is not enough: the
    /// file system dates a file by a clock that can lag a few milliseconds (seen: a file
    /// written just after a whole second dated 2 ms before it, and judged by the old build,
    /// 1 of 185). So the date is read back, and the file written again until it is late enough.
    ///
    /// Returns how many times it wrote. `dateOf` reads a file's date (a test's stand-in for the
    /// file system's clock).
    @discardableResult
    public static func writeInASecondOfItsOwn(
        _ data: Data, to file: URL,
        dateOf: (URL) -> Date? = {
            try? FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date
        }
    ) throws -> Int {
        let called = Date().timeIntervalSince1970.rounded(.down)
        var writes = 0
        while true {
            let now = Date().timeIntervalSince1970
            if now < called + 1.02 { Thread.sleep(forTimeInterval: called + 1.02 - now) }
            try data.write(to: file)
            writes += 1
            if let dated = dateOf(file), dated.timeIntervalSince1970.rounded(.down) > called { return writes }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Makes `destination` a copy of `source`, writing only the files that differ (so that
    /// unchanged files keep their dates) and removing what `source` no longer has; build
    /// folders, Git's and editors' files left out.
    static func mirror(_ source: URL, to destination: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        let names = try manager.contentsOfDirectory(atPath: source.path).filter { name in
            ![".git", ".swiftpm", ".DS_Store"].contains(name) && !name.hasPrefix(".build") && !name.hasPrefix(".#")
        }
        for stale in try manager.contentsOfDirectory(atPath: destination.path) where !names.contains(stale) {
            try manager.removeItem(at: destination.appendingPathComponent(stale))
        }
        for name in names {
            let (from, to) = (source.appendingPathComponent(name), destination.appendingPathComponent(name))
            var isFolder: ObjCBool = false
            if manager.fileExists(atPath: from.path, isDirectory: &isFolder), isFolder.boolValue {
                try mirror(from, to: to)
                continue
            }
            let data = try Data(contentsOf: from)
            if (try? Data(contentsOf: to)) != data {
                try? manager.removeItem(at: to)  // a folder, once
                try data.write(to: to)
            }
        }
    }
}

/// Work that runs on a thread of its own (the runs poll their processes, blocking it);
/// `result` is nil until it has returned.
public final class Background<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `work` is called once, on the thread that runs it; the result
    // is written and read under a lock.
    private let work: () -> Value
    private let outcome = Locked<Value?>(nil)

    public init(_ work: @escaping () -> Value) {
        self.work = work
        Thread { [self] in
            let value = self.work()
            outcome.withLock { $0 = value }
        }.start()
    }

    public var result: Value? { outcome.withLock { $0 } }

    /// Waits (polling) until the work has returned.
    public func wait() -> Value {
        while true {
            if let result { return result }
            usleep(20_000)
        }
    }
}

/// Runs `job` for each index below `count` on `width` threads (lanes), each taking the next
/// index none has taken; returns when all have returned. `job` learns its lane too.
public func runConcurrently(_ count: Int, width: Int, _ job: @escaping (_ lane: Int, _ index: Int) -> Void) {
    let next = Locked(0)
    let lanes = (0..<max(1, min(width, count))).map { lane in
        Background {
            while let index = next.withLock({ index -> Int? in
                defer { index += 1 }
                return index < count ? index : nil
            }) {
                job(lane, index)
            }
            return true
        }
    }
    for lane in lanes { _ = lane.wait() }
}
