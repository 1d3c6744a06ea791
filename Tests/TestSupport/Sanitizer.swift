import Foundation

/// Which sanitizer, if any, this test process was built with: some tests cannot run under one,
/// and every bounded wait is longer there (`boundStretch`).
///
/// Looked up on Linux only, where the runtimes define `__tsan_init` and `__asan_init`; on
/// Darwin both are false (the package's tests have not been run under a sanitizer on a Mac).
public enum Sanitizer {
    /// True under ThreadSanitizer.
    public static let thread: Bool = defines("__tsan_init")
    /// True under AddressSanitizer.
    public static let address: Bool = defines("__asan_init")

    private static func defines(_ symbol: String) -> Bool {
        #if os(Linux)
            return dlsym(nil, symbol) != nil
        #else
            return false
        #endif
    }
}
