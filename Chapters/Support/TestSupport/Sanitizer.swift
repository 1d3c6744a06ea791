import OperationContract

/// Which sanitizer, if any, this test process was built with: some tests cannot run under one,
/// and every bounded wait is longer there (`boundStretch`).
///
/// The contract kit's check, for the tests of the workshop's package too. Looked up on Linux
/// only; on Darwin both are false (the package's tests have not been run under a sanitizer on
/// a Mac).
public enum Sanitizer {
    /// True under ThreadSanitizer.
    public static var thread: Bool { ProcessSanitizer.thread }
    /// True under AddressSanitizer.
    public static var address: Bool { ProcessSanitizer.address }
}
