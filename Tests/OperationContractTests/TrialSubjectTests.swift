import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing

/// The kit on operations written to try it: hostile ones that block or deadlock the threads they
/// run on, and correct or broken ones that a careless kit misjudged. Each runs in a process of its
/// own (`contract-checks`), which must exit with a verdict on every clause within the kit's bound.
///
/// This suite checks each on the clauses where it bites, with a patience of one second. Checking
/// every clause of every hostile subject takes a minute of waiting in all (a blocked thread costs
/// the patience several times): `TrialSubjectFullChecks`, run with `KIT_TRIALS=1`.
@Suite("OperationContract on operations that block, deadlock or were misjudged")
struct TrialSubjectTests {
    /// A trial: the clauses it runs, and the verdicts it must get.
    struct Trial: Sendable, CustomTestStringConvertible {
        let subject: TrialSubject
        let verdicts: [ContractClause: ClauseVerdict]
        var testDescription: String { subject.rawValue }
    }

    static let trials: [Trial] = [
        // Each holds the thread that starts it until its work ends: reported once, by the clause
        // that starts it by hand; many at once is not checked.
        Trial(subject: .spinning, verdicts: [.startedByHand: .failed, .manyAtOnce: .notChecked]),
        Trial(subject: .blockingBlockOperation, verdicts: [.startedByHand: .failed, .manyAtOnce: .notChecked]),
        Trial(subject: .waitingMain, verdicts: [.startedByHand: .failed, .manyAtOnce: .notChecked]),
        // Blocks Swift's cooperative threads, not the one that starts it: the class keeps the
        // contract, and the kit, on threads of its own, still answers.
        Trial(subject: .blockingTask, verdicts: [.startedByHand: .passed, .manyAtOnce: .passed]),
        // Deadlocks: reported by the clause that meets them; what they keep from being checked
        // says so.
        Trial(
            subject: .deadlockingIsFinished,
            verdicts: [.executingWhileWorking: .notChecked, .finishIsAnnounced: .failed]),
        Trial(
            subject: .deadlockingIsReady,
            verdicts: [.executingWhileWorking: .failed, .startedByHand: .notChecked, .manyAtOnce: .notChecked]),
        Trial(
            subject: .deadlockingStart,
            verdicts: [.executingWhileWorking: .failed, .startedByHand: .notChecked, .cancelledBeforeStart: .failed]),
        // Correct, though its work waits for one of four slots.
        Trial(subject: .throttled, verdicts: [.manyAtOnce: .passed]),
        // Exercise 6's racing reference: a cancelled operation with a success.
        Trial(subject: .racingResult, verdicts: [.resultOnEveryPath: .failed]),
        // Checked while other work fills Dispatch's threads: a correct operation starts late, as
        // Foundation's own does, and passes; one that never starts its work still fails.
        Trial(subject: .crowdedDispatch, verdicts: [.executingWhileWorking: .passed]),
        Trial(subject: .crowdedIdle, verdicts: [.executingWhileWorking: .failed]),
        // A state changed in two steps still races a finish when one of the kit's threads falls
        // behind the others.
        Trial(subject: .slowFirstCancel, verdicts: [.manyAtOnce: .failed]),
    ]

    #if os(macOS) || os(Linux)
        @Test("each gets its verdicts, within the kit's bound", arguments: trials)
        func trial(_ trial: Trial) async throws {
            let clauses = ContractClause.allCases.filter { trial.verdicts[$0] != nil }
            let child = try await ContractChild.run(
                ["--patience", "1", "trial", trial.subject.rawValue] + clauses.map(\.rawValue), patience: 1)
            #expect(
                child.status == 0,
                "contract-checks did not exit within the kit's bound (\(formatted(30)) s at a patience of 1 s)\n\(child.report)"
            )
            #expect(child.verdicts == trial.verdicts, "\(child.report)")
        }
    #endif
}

/// Every clause of every hostile subject, at the default patience: each must end with a verdict
/// within the kit's stated bound, 30 × the patience (60 s). Slow on purpose — a thread that a
/// subject blocks costs the patience several times — so it runs only with `KIT_TRIALS=1`
/// (`KIT_TRIALS=1 swift test --filter TrialSubjectFullChecks`); its last measurement is in
/// `CheckedVersions.md`.
@Suite(
    "OperationContract (slow): every clause of every hostile subject, within the bound",
    .enabled(if: ProcessInfo.processInfo.environment["KIT_TRIALS"] == "1", "set KIT_TRIALS=1 to run it"))
struct TrialSubjectFullChecks {
    #if os(macOS) || os(Linux)
        @Test("each ends with a verdict on every clause", arguments: TrialSubject.allCases.filter(\.isHostile))
        func fullCheck(_ subject: TrialSubject) async throws {
            let child = try await ContractChild.run(["trial", subject.rawValue])
            #expect(child.status == 0, "no verdict within the bound\n\(child.report)")
            #expect(child.verdicts.count == ContractClause.allCases.count, "\(child.report)")
            #expect(child.seconds < 60 * boundStretch, "\(subject): \(child.seconds) s")
            print("\(subject.rawValue): verdicts on every clause in \(formatted(child.seconds)) s")
        }
    #endif
}

/// `seconds` with one decimal.
func formatted(_ seconds: Double) -> String {
    String(format: "%.1f", seconds)
}
