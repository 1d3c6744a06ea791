import ContractSubjects
import Foundation
import OperationContract
import Testing

/// Each clause, seen failing: `BrokenOperation` makes one mistake at a time, and the kit must
/// fail the clause that mistake breaks — and no other: the clauses that the mistake keeps from
/// being checked say "not checked", each naming the clause that reported it. Without a mistake,
/// it passes every clause.
///
/// Every clause of every mistake is checked, each mistake in a process of its own
/// (`contract-checks`). The mistakes that make the kit wait are checked with a patience of one
/// second: a bound that decides only when a broken operation fails.
@Suite("OperationContract: each mistake fails the clause it breaks")
struct BrokenOperationTests {
    /// What a mistake must fail, which clauses it must leave "not checked" because of that
    /// failure, and which the kit cannot check on it for a reason of their own (beyond those that
    /// cannot be checked on this platform).
    struct Expected: Sendable, CustomTestStringConvertible {
        let mistake: BrokenOperation.Mistake
        let fails: Set<ContractClause>
        var notChecked: Set<ContractClause> = []
        var unseen: Set<ContractClause> = []
        /// The mistake makes the kit wait its patience somewhere.
        var hangs = false
        var testDescription: String { mistake.rawValue }
    }

    static let expected: [Expected] = [
        Expected(mistake: .none, fails: []),
        Expected(mistake: .finishedWhileStillExecuting, fails: [.executingWhileWorking]),
        Expected(
            mistake: .silentFinish, fails: [.finishIsAnnounced],
            notChecked: [
                .executingWhileWorking, .workEndingAtOnce, .secondFinishChangesNothing, .startedByHand,
                .cancelWhileRunning, .cancelStopsTheWork, .cancelAsItStarts, .resultOnEveryPath, .dependenciesUnderLoad,
                .manyAtOnce, .freedOnceFinished,
            ], hangs: true),
        Expected(
            mistake: .mainUnderTheLock, fails: [.workEndingAtOnce],
            notChecked: [.startedByHand, .cancelAsItStarts, .dependenciesUnderLoad], hangs: true),
        Expected(mistake: .announcesEveryFinish, fails: onAMac([.secondFinishChangesNothing])),
        Expected(
            mistake: .startIgnoresCancel, fails: [.cancelledBeforeStart],
            notChecked: [.startedByHand, .cancelWhileWaiting, .cancelledAheadOfItsDependency]),
        Expected(
            mistake: .executingWhenCancelled, fails: [.cancelledBeforeStart],
            notChecked: [.startedByHand, .cancelWhileWaiting]),
        Expected(
            mistake: .cancelFinishesWaiting, fails: [.cancelledBeforeStart, .cancelWhileWaiting],
            notChecked: [.cancelledAheadOfItsDependency]),
        Expected(mistake: .cancelFinishesRunning, fails: [.cancelWhileRunning]),
        // The factory wires the work's stop(), the class never calls it: seen as a class that
        // cannot stop its work.
        Expected(mistake: .cancelIgnoresTheWork, fails: [], unseen: [.cancelStopsTheWork], hangs: true),
        Expected(mistake: .workStoppedBeforeTheFlag, fails: [.cancelStopsTheWork], notChecked: [.resultOnEveryPath]),
        Expected(mistake: .earlyReturnAfterStarting, fails: [.cancelAsItStarts], hangs: true),
        Expected(
            mistake: .readyIgnoresDependencies, fails: [.dependenciesUnderLoad],
            notChecked: [.cancelledAheadOfItsDependency]),
        Expected(mistake: .readyWaitsForDependencies, fails: [.cancelledAheadOfItsDependency], hangs: true),
        Expected(mistake: .unlockedCancel, fails: [.manyAtOnce]),
        Expected(mistake: .keepsItselfAlive, fails: [.freedOnceFinished], hangs: true),
        Expected(mistake: .leaksWhenCancelledWhileRunning, fails: [.freedOnceFinished], hangs: true),
        Expected(mistake: .didWithoutWill, fails: onAMac([.announcedForObservers])),
        Expected(mistake: .resultAfterFinish, fails: [.resultOnEveryPath]),
    ]

    /// `clauses` on a Mac, where key-value observers hear every announcement; none on Linux.
    static func onAMac(_ clauses: Set<ContractClause>) -> Set<ContractClause> {
        #if canImport(ObjectiveC)
            clauses
        #else
            []
        #endif
    }

    /// The clauses that cannot be checked on this platform, whatever the operation.
    static let neverHere: Set<ContractClause> = {
        #if canImport(ObjectiveC)
            []
        #else
            [.announcedForObservers]
        #endif
    }()

    #if os(macOS) || os(Linux)
        @Test("each mistake fails its clause, every clause checked", arguments: expected)
        func mistake(_ expected: Expected) async throws {
            // In a process of its own: some mistakes deadlock a thread of their queue for good, or
            // leave a queue that Foundation no longer trusts, and Foundation prints its warnings.
            let patience = expected.hangs ? 1.0 : 2.0
            let child = try await ContractChild.run(
                ["--patience", "\(patience)", "mistake", expected.mistake.rawValue], patience: patience)
            #expect(child.status == 0, "contract-checks ended with status \(String(describing: child.status))")
            let failed = Set(child.verdicts.filter { $0.value == .failed }.keys)
            let notChecked = Set(child.verdicts.filter { $0.value == .notChecked }.keys)
            let expectedNotChecked = expected.notChecked.union(expected.unseen).union(Self.neverHere)
                .subtracting(expected.fails)
            #expect(
                failed == expected.fails && notChecked == expectedNotChecked,
                """
                \(expected.mistake): should fail \(names(expected.fails)) and leave \(names(expectedNotChecked)) \
                not checked; it failed \(names(failed)) and left \(names(notChecked)) not checked
                \(child.report)
                """)
            // Each clause left "not checked" by the mistake names the clause that reported it.
            for clause in expected.notChecked {
                let evidence = child.evidence(of: clause)
                #expect(
                    evidence.contains { line in expected.fails.contains { line.contains("see \($0.rawValue)") } },
                    "\(expected.mistake), \(clause): \(evidence)")
            }
            #if os(Linux)
                if expected.mistake == .cancelFinishesWaiting {
                    // Foundation's own warning, on standard output on Linux; the kit survived it.
                    #expect(
                        child.lines.contains {
                            $0.contains("went isFinished=YES without being started by the queue it is in")
                        })
                }
            #endif
        }
    #endif

    private func names(_ clauses: Set<ContractClause>) -> String {
        "[" + clauses.map(\.rawValue).sorted().joined(separator: ", ") + "]"
    }
}
