import AsyncOperations
import Foundation

/// One `willChangeValue(forKey:)` or `didChangeValue(forKey:)` that an operation made, with the
/// state its getters reported at that moment.
public struct Announcement: Sendable, CustomStringConvertible {
    public enum Change: String, Sendable {
        case will = "willChangeValue"
        case did = "didChangeValue"
    }

    public let change: Change
    public let key: String
    public let isExecuting: Bool
    public let isFinished: Bool

    public var description: String { "\(change.rawValue)(forKey: \"\(key)\")" }

    /// The value of `key` ("isExecuting" or "isFinished") at that moment.
    func value(of key: String) -> Bool? {
        switch key {
        case "isExecuting": isExecuting
        case "isFinished": isFinished
        default: nil
        }
    }
}

/// The announcements an operation makes while recording is on.
///
/// Linux's Foundation ignores `willChangeValue(forKey:)`, and acts on `didChangeValue(forKey:)`
/// alone; on a Mac, key-value observing notifies observers only of a change announced with
/// both, in that order, around the change. So whether an operation announces correctly cannot
/// be seen from the queue on Linux. A test subclass that overrides both methods (they are
/// `NSObject`'s, on both platforms) records every call — whatever the code that made it looks
/// like: a literal key, a loop over keys, a helper — and what the getters said at that moment.
public final class AnnouncementLog: Sendable {
    private let state = Locked<(recording: Bool, announcements: [Announcement])>((false, []))

    public init() {}

    public var announcements: [Announcement] { state.withLock { $0.announcements } }

    /// Records from now on.
    public func start() { state.withLock { $0.recording = true } }

    /// Stops recording.
    public func stop() { state.withLock { $0.recording = false } }

    /// Records `change` of `key` by `operation` if recording is on. Call it from the override,
    /// before calling `super`: it reads the operation's getters, as Foundation does while it
    /// announces (so an operation that announces while holding the lock its getters take
    /// blocks here, as it would in Foundation).
    public func record(_ change: Announcement.Change, _ key: String, of operation: Operation) {
        guard state.withLock({ $0.recording }) else { return }
        let announcement = Announcement(
            change: change, key: key, isExecuting: operation.isExecuting, isFinished: operation.isFinished)
        state.withLock { $0.announcements.append(announcement) }
    }

    /// What is wrong with how the recorded announcements announce that `key` changed to
    /// `newValue`, one sentence each; empty if `willChangeValue(forKey: key)` came while the
    /// getter still said the old value, and `didChangeValue(forKey: key)` after it said the new
    /// one, as many times each. `place` names the code, e.g. "finish()".
    public func problems(announcing key: String, changedTo newValue: Bool, in place: String) -> [String] {
        let all = announcements
        let wills = all.filter { $0.key == key && $0.change == .will }
        let dids = all.filter { $0.key == key && $0.change == .did }
        let will = "willChangeValue(forKey: \"\(key)\")"
        let did = "didChangeValue(forKey: \"\(key)\")"
        if wills.isEmpty && dids.isEmpty {
            let otherKeys = Set(all.map(\.key)).subtracting(["isExecuting", "isFinished"]).sorted()
            let spelling =
                otherKeys.isEmpty
                ? ""
                : " (it announced \(otherKeys.map { "\"\($0)\"" }.joined(separator: ", ")); the keys are \"isExecuting\" and \"isFinished\")"
            return ["\(place) never announces \"\(key)\": \(will) before the change, \(did) after it\(spelling)"]
        }
        guard let firstWill = wills.first else {
            return [
                "\(place) calls \(did) without \(will) before it: Linux does not mind, but on a Mac key-value observing then notifies nobody, and the queue never learns"
            ]
        }
        guard let lastDid = dids.last else {
            return ["\(place) calls \(will) but never \(did): nobody learns the change"]
        }
        var problems: [String] = []
        let isWill = { (announcement: Announcement) in announcement.key == key && announcement.change == .will }
        let isDid = { (announcement: Announcement) in announcement.key == key && announcement.change == .did }
        if let firstDidIndex = all.firstIndex(where: isDid), let firstWillIndex = all.firstIndex(where: isWill),
            firstDidIndex < firstWillIndex
        {
            problems.append("\(place) calls \(did) before \(will): first the will, then the change, then the did")
        }
        if wills.count != dids.count {
            problems.append(
                "\(place) calls \(will) \(wills.count) times and \(did) \(dids.count) times: one of each per change"
            )
        }
        if firstWill.value(of: key) == newValue {
            problems.append(
                "\(place) calls \(will) after the change (\(key) already said \(newValue)): an observer that asks for the old value there gets the new one; announce, then change the state"
            )
        }
        if lastDid.value(of: key) != newValue {
            problems.append(
                "\(place) calls \(did) before the change (\(key) still said \(!newValue)): the queue reads the old state and never learns"
            )
        }
        return problems
    }
}
