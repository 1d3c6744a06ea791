import Dispatch
import Foundation
import OperationContract

// Asynchronous base operations from public apps and libraries, re-typed as subjects of the kit:
// each keeps its source's names, structure and behaviour; each change that Swift 6 or Linux
// forces is named in a comment where it is made. Each is wrapped around the kit's work the way
// its own code uses it (a subclass that runs the work, or its own closure API), and where the
// class offers no way to stop its work, the wrapper stops it from cancel() after the
// cancellation is recorded, the order chapter 3 teaches.

/// Every base from an app or a library that the kit was run on: a row of the second table of
/// `CheckedVersions.md`.
public enum AppBase: String, CaseIterable, Sendable {
    case apollo, amplify, embeddedSocial, mullvad, nuke

    /// The base's name in the table's first column.
    public var label: String {
        switch self {
        case .apollo: "`ApolloIOS.AsynchronousOperation`"
        case .amplify: "`AmplifySwift.AsynchronousOperation`"
        case .embeddedSocial: "`EmbeddedSocialSDK.AsyncOperation`"
        case .mullvad: "`MullvadVPN.AsyncBlockOperation`"
        case .nuke: "`Nuke.Operation`"
        }
    }

    /// Whether a run under ThreadSanitizer reports a data race of the base's own.
    ///
    /// Apollo's `state` has no lock. The table's tests skip it under ThreadSanitizer.
    public var racesByDesign: Bool { self == .apollo }

    /// Runs the kit on the base.
    public func check(clauses: [ContractClause] = ContractClause.allCases, patience: Double = 2) async
        -> ContractReport
    {
        switch self {
        case .apollo: await checkContract(clauses: clauses, patience: patience) { ApolloChecked($0) }
        case .amplify: await checkContract(clauses: clauses, patience: patience) { AmplifyChecked($0) }
        case .embeddedSocial: await checkContract(clauses: clauses, patience: patience) { EmbeddedSocialChecked($0) }
        case .mullvad:
            // Its block hands the work a plain completion, not @Sendable, as a Swift 5-era
            // base does: start(then:) takes it as it is.
            await checkContract(clauses: clauses, patience: patience) { work in
                MullvadVPN.AsyncBlockOperation { done in work.start(then: done) }
            }
        case .nuke:
            await checkContract(clauses: clauses, patience: patience) { work in
                Nuke.Operation { finish in work.start(then: finish) }
            }
        }
    }
}

// MARK: - apollographql/apollo-ios

/// apollographql/apollo-ios, `Sources/Apollo/AsynchronousOperation.swift` (commit 9dffb5d).
public enum ApolloIOS {
    /// The state lives in `state`, unlocked; `isExecuting` and `isFinished` follow it through
    /// key-value observing's dependent keys, on Darwin.
    class AsynchronousOperation: Operation, @unchecked Sendable {
        // Swift 6: `@unchecked Sendable` restated, as every Operation subclass must; `state` is
        // not locked (the original's, unchanged).
        #if canImport(ObjectiveC)
            @objc class func keyPathsForValuesAffectingIsExecuting() -> Set<String> {
                return ["state"]
            }

            @objc class func keyPathsForValuesAffectingIsFinished() -> Set<String> {
                return ["state"]
            }
        #else
            // Linux: no `@objc`, and no key-value observing to ask these; kept, never called.
            class func keyPathsForValuesAffectingIsExecuting() -> Set<String> {
                return ["state"]
            }

            class func keyPathsForValuesAffectingIsFinished() -> Set<String> {
                return ["state"]
            }
        #endif

        enum State {
            case initialized
            case ready
            case executing
            case finished
        }

        var state: State = .initialized {
            willSet {
                willChangeValue(forKey: "state")
            }
            didSet {
                didChangeValue(forKey: "state")
            }
        }

        override var isAsynchronous: Bool {
            return true
        }

        override var isReady: Bool {
            let ready = super.isReady
            if ready {
                state = .ready
            }
            return ready
        }

        override var isExecuting: Bool {
            return state == .executing
        }

        override var isFinished: Bool {
            return state == .finished
        }
    }
}

/// Started and finished as Apollo's own `FetchQueryOperation` (`Sources/Apollo/ApolloClient.swift`)
/// does: `start()` finishes a cancelled operation, else sets `.executing` and runs the work,
/// whose end sets `.finished`.
final class ApolloChecked: ApolloIOS.AsynchronousOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }

    override func start() {
        if isCancelled {
            state = .finished
            return
        }
        state = .executing
        work.start { self.state = .finished }
    }

    override func cancel() {
        super.cancel()
        work.stop()
    }
}

// MARK: - aws-amplify/amplify-swift

/// aws-amplify/amplify-swift, `Amplify/Core/Support/AsychronousOperation.swift` (commit 413be24).
public enum AmplifySwift {
    /// The state is read and written on a concurrent queue, written with an asynchronous
    /// barrier; `isExecuting` and `isFinished` follow it through key-value observing, on Darwin.
    open class AsynchronousOperation: Operation, @unchecked Sendable {
        // Swift 6: `@unchecked Sendable` restated; `_state` is touched only on `stateQueue`.
        #if canImport(ObjectiveC)
            @objc private enum OperationState: Int {
                case notExecuting
                case executing
                case finished
            }
        #else
            // Linux: no `@objc`.
            private enum OperationState: Int {
                case notExecuting
                case executing
                case finished
            }
        #endif

        private let stateQueue = DispatchQueue(label: "com.amazonaws.amplify.AsyncOperation", attributes: .concurrent)

        private var _state: OperationState = .notExecuting

        #if canImport(ObjectiveC)
            @objc private dynamic var state: OperationState {
                get { return stateQueue.sync { _state } }
                set { stateQueue.async(flags: .barrier) { self._state = newValue } }
            }
        #else
            // Linux: no `@objc dynamic`, so no automatic notification of `state`.
            private var state: OperationState {
                get { return stateQueue.sync { _state } }
                set { stateQueue.async(flags: .barrier) { self._state = newValue } }
            }
        #endif

        open override var isReady: Bool {
            return state == .notExecuting && super.isReady
        }

        public final override var isExecuting: Bool {
            return state == .executing
        }

        public final override var isFinished: Bool {
            return state == .finished
        }

        #if canImport(ObjectiveC)
            open override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
                if ["isReady", "isFinished", "isExecuting"].contains(key) {
                    return [#keyPath(state)]
                }

                return super.keyPathsForValuesAffectingValue(forKey: key)
            }
        #else
            // Linux: no key-value observing, and no such class method to override (nor
            // `#keyPath`); kept, never called.
            open class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
                if ["isReady", "isFinished", "isExecuting"].contains(key) {
                    return ["state"]
                }
                return []
            }
        #endif

        public final override func start() {
            if isCancelled {
                state = .finished
                return
            }

            state = .executing
            main()
        }

        open override func main() {
            fatalError("Subclasses must implement `main`.")
        }

        open func pause() {
            if isExecuting {
                state = .notExecuting
            }
        }

        open func resume() {
            if isReady {
                state = .executing
            }
        }

        public final func finish() {
            if !isFinished {
                state = .finished
            }
        }
    }
}

/// A subclass that runs the work from `main()` and finishes when it ends, as Amplify's own
/// operations do.
final class AmplifyChecked: AmplifySwift.AsynchronousOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

// MARK: - microsoft/EmbeddedSocial-iOS-SDK

/// microsoft/EmbeddedSocial-iOS-SDK, `EmbeddedSocial/Sources/Common/AsyncOperation.swift`
/// (commit df01028), with the `withCriticalScope` it calls (the extension of `NSLock` from
/// Apple's "Advanced NSOperations" sample, which the SDK carries).
public enum EmbeddedSocialSDK {
    class AsyncOperation: Operation, @unchecked Sendable {
        // Swift 6: `@unchecked Sendable` restated; the flags are touched under `stateLock`.
        override var isAsynchronous: Bool {
            return true
        }

        private let stateLock = NSLock()

        private var _executing: Bool = false

        override private(set) var isExecuting: Bool {
            get {
                return stateLock.withCriticalScope { _executing }
            }
            set {
                willChangeValue(forKey: "isExecuting")
                stateLock.withCriticalScope { _executing = newValue }
                didChangeValue(forKey: "isExecuting")
            }
        }

        private var _finished: Bool = false
        override private(set) var isFinished: Bool {
            get {
                return stateLock.withCriticalScope { _finished }
            }
            set {
                willChangeValue(forKey: "isFinished")
                stateLock.withCriticalScope { _finished = newValue }
                didChangeValue(forKey: "isFinished")
            }
        }

        func completeOperation() {
            if isExecuting {
                isExecuting = false
            }

            if !isFinished {
                isFinished = true
            }
        }

        override func start() {
            if isCancelled {
                isFinished = true
                return
            }

            isExecuting = true

            main()
        }

        override func main() {
            fatalError("subclasses must override `main`")
        }
    }
}

extension NSLock {
    /// Runs `block` holding the lock (Apple's "Advanced NSOperations" sample).
    func withCriticalScope<T>(block: () -> T) -> T {
        lock()
        let value = block()
        unlock()
        return value
    }
}

/// A subclass that runs the work from `main()` and completes when it ends.
final class EmbeddedSocialChecked: EmbeddedSocialSDK.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.completeOperation() } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

// MARK: - mullvad/mullvadvpn-app

/// mullvad/mullvadvpn-app, `ios/MullvadVPN/AsyncOperation.swift` as it stood in 2020 (read from
/// the fork tshepang/mullvadvpn-app, commit 0450405), with the `withCriticalBlock` it calls.
public enum MullvadVPN {
    /// A recursive lock guards the flags; `start()` runs `main()` holding it, and `finish()`
    /// announces holding it.
    class AsyncOperation: Operation, @unchecked Sendable {
        // Swift 6: `@unchecked Sendable` restated; the flags are touched under `stateLock`.
        private let stateLock = NSRecursiveLock()

        private var _isExecuting = false
        private var _isFinished = false
        private var _isCancelled = false

        override var isExecuting: Bool {
            return stateLock.withCriticalBlock { _isExecuting }
        }

        override var isFinished: Bool {
            return stateLock.withCriticalBlock { _isFinished }
        }

        override var isCancelled: Bool {
            return stateLock.withCriticalBlock { _isCancelled }
        }

        override var isAsynchronous: Bool {
            return true
        }

        override func start() {
            stateLock.withCriticalBlock {
                if self._isCancelled {
                    self.finish()
                } else {
                    self.setExecuting(true)
                    self.main()
                }
            }
        }

        override func main() {
            // Override in subclasses
        }

        override func cancel() {
            stateLock.withCriticalBlock {
                if !self._isCancelled {
                    self.setCancelled(true)

                    // Subclasses should call `finish()` to complete the operation
                }
            }
        }

        func finish() {
            stateLock.withCriticalBlock {
                if self._isExecuting {
                    self.setExecuting(false)
                }

                if !self._isFinished {
                    self.setFinished(true)
                }
            }
        }

        private func setExecuting(_ value: Bool) {
            willChangeValue(for: \.isExecuting)
            _isExecuting = value
            didChangeValue(for: \.isExecuting)
        }

        private func setFinished(_ value: Bool) {
            willChangeValue(for: \.isFinished)
            _isFinished = value
            didChangeValue(for: \.isFinished)
        }

        private func setCancelled(_ value: Bool) {
            willChangeValue(for: \.isCancelled)
            _isCancelled = value
            didChangeValue(for: \.isCancelled)
        }
    }

    /// Asynchronous block operation.
    final class AsyncBlockOperation: AsyncOperation, @unchecked Sendable {
        // Swift 6: `@unchecked Sendable` restated; `block` is a constant.
        private let block: (@escaping () -> Void) -> Void

        init(block: @escaping (@escaping () -> Void) -> Void) {
            self.block = block
            super.init()
        }

        override func main() {
            self.block { [weak self] in
                self?.finish()
            }
        }
    }
}

extension NSRecursiveLock {
    /// Runs `body` holding the lock (MullvadVPN's helper).
    func withCriticalBlock<T>(_ body: () -> T) -> T {
        lock()
        defer { unlock() }
        return body()
    }
}

// MARK: - kean/Nuke

/// kean/Nuke, `Sources/Nuke/Internal/Operation.swift` (commit 0df05cf).
public enum Nuke {
    /// Runs a closure, its starter, which calls back to finish it.
    final class Operation: Foundation.Operation, @unchecked Sendable {
        // Linux has no `os_unfair_lock`: an `NSLock` on both platforms, locked and unlocked at
        // the same places.
        override var isExecuting: Bool {
            get {
                lock.lock()
                defer { lock.unlock() }
                return _isExecuting
            }
            set {
                lock.lock()
                _isExecuting = newValue
                lock.unlock()

                willChangeValue(forKey: "isExecuting")
                didChangeValue(forKey: "isExecuting")
            }
        }

        override var isFinished: Bool {
            get {
                lock.lock()
                defer { lock.unlock() }
                return _isFinished
            }
            set {
                lock.lock()
                _isFinished = newValue
                lock.unlock()

                willChangeValue(forKey: "isFinished")
                didChangeValue(forKey: "isFinished")
            }
        }

        typealias Starter = @Sendable (_ finish: @Sendable @escaping () -> Void) -> Void
        private let starter: Starter

        private var _isExecuting = false
        private var _isFinished = false
        private var isFinishCalled = false
        private let lock = NSLock()

        init(starter: @escaping Starter) {
            self.starter = starter
        }

        override func start() {
            guard !isCancelled else {
                isFinished = true
                return
            }
            isExecuting = true
            starter { [weak self] in
                self?._finish()
            }
        }

        private func _finish() {
            lock.lock()
            guard !isFinishCalled else {
                return lock.unlock()
            }
            isFinishCalled = true
            lock.unlock()

            isExecuting = false
            isFinished = true
        }
    }
}
