#if os(Linux)
    import Foundation
    import Glibc
    import Synchronization

    /// How `AnnouncementWatch` sees announcements on Linux, where no subclass can override them.
    ///
    /// swift-corelibs-foundation declares `willChangeValue(forKey:)` (which does nothing) and
    /// `didChangeValue(forKey:)` (which drives the queue) in an extension of `Operation`: calls
    /// to them are direct calls to two symbols of libFoundation.so. The methods below define
    /// those same symbols in the test executable, which the linker prefers to the library's: so
    /// every call in the process — the learner's, the chapters', Foundation's own — comes here
    /// first. Each tells the operation's watch, if it has one (`WatchRegistry`), then does what
    /// Foundation does: nothing for a will, Foundation's own `didChangeValue(forKey:)` for a did
    /// (found with `dlsym(RTLD_NEXT, …)`). The key-path forms are handled the same way, as
    /// Foundation handles them: a did for one of the four keys is a did for that key's name.
    ///
    /// Nothing changes for an operation that no watch watches. The names are Foundation's
    /// mangled names on Linux (`nm -D libFoundation.so`); if they ever change, the calls go to
    /// Foundation directly, `AnnouncementHooks.installed` is false, and a watch sees nothing.
    /// Debug builds only: an optimised build inlines Foundation's empty will, leaving no call.
    public enum AnnouncementHooks {
        private static let watches = Atomic<Bool>(false)
        private static let reached = Atomic<Bool>(false)

        /// True once a watch exists: until then every call goes straight to Foundation.
        static var anyWatch: Bool { watches.load(ordering: .relaxed) }

        static func watching() { watches.store(true, ordering: .relaxed) }

        /// True if the calls of this process reach the hooks: a debug build (an optimised one
        /// inlines Foundation's empty `willChangeValue`, so no call is left to see), and a call
        /// of TestSupport's own, from another file, arrived. Checked once.
        public static let installed: Bool = {
            #if DEBUG  // SwiftPM's debug builds define it
                HookProbe.announce()
                return reached.load(ordering: .relaxed)
            #else
                return false
            #endif
        }()

        static func will(_ operation: Operation, _ key: String) {
            if operation is HookProbe { return reached.store(true, ordering: .relaxed) }
            guard let watch = WatchRegistry.watch(for: operation) else { return }
            watch.announce(.will, key, by: operation) {}
        }

        static func did(_ operation: Operation, _ key: String) {
            guard let watch = WatchRegistry.watch(for: operation) else { return foundationsDid(operation, key) }
            watch.announce(.did, key, by: operation) { foundationsDid(operation, key) }
        }

        /// The key a key path stands for, as Foundation maps it; nil for another key path.
        static func key<Value>(_ keyPath: KeyPath<Operation, Value>) -> String? {
            switch keyPath {
            case \Operation.isFinished: "isFinished"
            case \Operation.isReady: "isReady"
            case \Operation.isCancelled: "isCancelled"
            case \Operation.isExecuting: "isExecuting"
            default: nil
            }
        }

        /// Foundation's own `Operation.didChangeValue(forKey:)`.
        private static let original: UInt = {
            let next = UnsafeMutableRawPointer(bitPattern: -1)  // RTLD_NEXT: the libraries after the executable
            guard let found = dlsym(next, "$s10Foundation9OperationC14didChangeValue6forKeyySS_tF") else {
                fatalError("TestSupport: Foundation's Operation.didChangeValue(forKey:) was not found")
            }
            return UInt(bitPattern: found)
        }()

        /// Calls Foundation's `didChangeValue(forKey:)` on `operation`.
        ///
        /// A Swift method takes `self` in the register that a closure takes its context in
        /// (`swiftself`), and its other arguments as a closure does: so a closure value made of
        /// the method's address and the operation as its context calls the method. The closure
        /// lives in a struct so that it keeps its direct calling convention; building it
        /// retains the operation once, and destroying it releases it once.
        private static func foundationsDid(_ operation: Operation, _ key: String) {
            let function = UnsafeMutableRawPointer(bitPattern: original)!  // never 0: checked when found
            let raw = RawClosure(function: function, context: Unmanaged.passUnretained(operation).toOpaque())
            let method = unsafeBitCast(raw, to: MethodCall.self)
            method.call(key)
        }

        private struct RawClosure {
            let function: UnsafeMutableRawPointer
            let context: UnsafeMutableRawPointer
        }

        private struct MethodCall {
            let call: (String) -> Void
        }
    }

    extension Operation {
        /// Foundation's `willChangeValue(forKey:)`, seen first by TestSupport (AnnouncementHooks).
        /// Not for calling: call `willChangeValue(forKey:)`, which is this.
        @_silgen_name("$s10Foundation9OperationC15willChangeValue6forKeyySS_tF")
        public func _testSupportWillChangeValue(forKey key: String) {
            AnnouncementHooks.will(self, key)
        }

        /// Foundation's `didChangeValue(forKey:)`, seen first by TestSupport (AnnouncementHooks).
        /// Not for calling: call `didChangeValue(forKey:)`, which is this.
        @_silgen_name("$s10Foundation9OperationC14didChangeValue6forKeyySS_tF")
        public func _testSupportDidChangeValue(forKey key: String) {
            AnnouncementHooks.did(self, key)
        }

        /// Foundation's `willChangeValue(for:)`, seen first by TestSupport (AnnouncementHooks).
        @_silgen_name("$s10Foundation9OperationC15willChangeValue3forys7KeyPathCyACxG_tlF")
        public func _testSupportWillChangeValue<Value>(for keyPath: KeyPath<Operation, Value>) {
            AnnouncementHooks.will(self, AnnouncementHooks.key(keyPath) ?? "\(keyPath)")
        }

        /// Foundation's `didChangeValue(for:)`, seen first by TestSupport (AnnouncementHooks).
        @_silgen_name("$s10Foundation9OperationC14didChangeValue3forys7KeyPathCyACxG_tlF")
        public func _testSupportDidChangeValue<Value>(for keyPath: KeyPath<Operation, Value>) {
            if let key = AnnouncementHooks.key(keyPath) {
                AnnouncementHooks.did(self, key)
            } else if let watch = WatchRegistry.watch(for: self) {
                watch.announce(.did, "\(keyPath)", by: self) {}  // Foundation ignores other key paths
            }
        }
    }
#endif
