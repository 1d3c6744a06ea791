#if canImport(Testing)
    import Testing

    extension ContractReport {
        /// Records one issue in the running Swift Testing test for each clause that failed.
        ///
        /// Each issue names the operation's class and the clause, with the chapter that explains
        /// it and the evidence the kit saw; a report that passed records nothing:
        ///
        /// ```swift
        /// @Test func contract() async {
        ///     await checkContract { work in MyOperation(work) }.recordIssues()
        /// }
        /// ```
        ///
        /// From XCTest, assert on ``passed`` instead: `XCTAssertTrue(report.passed, "\(report)")`.
        ///
        /// - Parameter sourceLocation: where the issues are reported; the caller's line by default.
        public func recordIssues(sourceLocation: SourceLocation = #_sourceLocation) {
            for failure in failures {
                Issue.record("\(operationType) breaks the contract:\n\(failure)", sourceLocation: sourceLocation)
            }
        }
    }
#endif
