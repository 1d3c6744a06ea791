import ContractSubjects
import Foundation
import OperationContract
import Testing

/// Each clause, seen failing: `BrokenOperation` makes one mistake at a time, and the kit must
/// fail the clause that mistake breaks (and only the clauses it can break). Without a mistake,
/// it passes every clause.
@Suite("OperationContract: each mistake fails the clause it breaks")
struct BrokenOperationTests {
    /// What a mistake must fail, and what else it may fail (consequences of the same mistake).
    struct Expected: Sendable, CustomTestStringConvertible {
        let mistake: BrokenOperation.Mistake
        let fails: Set<ContractClause>
        var mayAlsoFail: Set<ContractClause> = []
        var testDescription: String { mistake.rawValue }
    }

    /// The mistakes that leave no thread blocked and no queue that Foundation no longer
    /// trusts: checked here, every clause.
    static let inProcess: [Expected] = [
        Expected(mistake: .none, fails: []),
        Expected(mistake: .finishedWhileStillExecuting, fails: [.executingWhileWorking]),
        Expected(mistake: .announcesEveryFinish, fails: announcementsCanBeHeard ? [.secondFinishChangesNothing] : []),
        Expected(mistake: .startIgnoresCancel, fails: [.cancelledBeforeStart, .cancelWhileWaiting]),
        Expected(mistake: .cancelFinishesRunning, fails: [.cancelWhileRunning]),
        Expected(mistake: .cancelIgnoresTheWork, fails: [.cancelStopsTheWork]),
        // Stopped first, the work can report before the cancel is recorded: a success, then the flag.
        Expected(mistake: .workStoppedBeforeTheFlag, fails: [.cancelStopsTheWork], mayAlsoFail: [.resultOnEveryPath]),
        Expected(mistake: .earlyReturnAfterStarting, fails: [.cancelAsItStarts]),
        Expected(mistake: .readyIgnoresDependencies, fails: [.dependenciesUnderLoad]),
        Expected(mistake: .unlockedCancel, fails: [.manyAtOnce]),
        Expected(mistake: .keepsItselfAlive, fails: [.freedOnceFinished]),
        Expected(mistake: .resultAfterFinish, fails: [.resultOnEveryPath]),
    ]

    /// Key-value observers hear a second "isFinished" on a Mac; on Linux nothing can.
    static let announcementsCanBeHeard: Bool = {
        #if canImport(ObjectiveC)
            true
        #else
            false
        #endif
    }()

    @Test("each mistake fails its clause, every clause checked", arguments: inProcess)
    func mistake(_ expected: Expected) async {
        let report = await checkContract(result: \.result) { BrokenOperation(expected.mistake, $0) }
        expect(expected, failed(in: verdicts(of: report)), "\(report)")
    }

    #if os(macOS) || os(Linux)
        // The mistakes that hang, or leave a queue Foundation no longer trusts: each runs in a
        // child process, contract-checks, and the slow ones only on the clauses that show them
        // (every other clause would wait its full patience for a finish that never comes).

        @Test("a finish that never announces \"isFinished\" (chapter 2)")
        func silentFinish() async throws {
            let child = try await ContractChild.run(
                ["mistake", "silentFinish", "finishIsAnnounced", "workEndingAtOnce", "cancelledBeforeStart"])
            // Linux's queue looks at isFinished once after start() returns: a finish inside start() is seen.
            expect(
                Expected(mistake: .silentFinish, fails: [.finishIsAnnounced], mayAlsoFail: [.workEndingAtOnce]),
                child)
        }

        @Test("a lock held around main() that finish() takes too: work that ends at once deadlocks")
        func mainUnderTheLock() async throws {
            let child = try await ContractChild.run(
                ["mistake", "mainUnderTheLock", "finishIsAnnounced", "workEndingAtOnce", "cancelWhileRunning"])
            expect(Expected(mistake: .mainUnderTheLock, fails: [.workEndingAtOnce]), child)
        }

        @Test("cancel() that finishes an operation still waiting in its queue (chapter 3's pitfall)")
        func cancelFinishesWaiting() async throws {
            let child = try await ContractChild.run(["mistake", "cancelFinishesWaiting"])
            expect(
                Expected(mistake: .cancelFinishesWaiting, fails: [.cancelledBeforeStart, .cancelWhileWaiting]), child)
            #if os(Linux)
                // Foundation's own warning, on standard output on Linux; the kit survived it.
                #expect(
                    child.lines.contains {
                        $0.contains("went isFinished=YES without being started by the queue it is in")
                    })
            #endif
        }

        @Test("didChangeValue(forKey:) without willChangeValue(forKey:): a Mac's observers hear nothing")
        func didWithoutWill() async throws {
            let child = try await ContractChild.run([
                "mistake", "didWithoutWill", "finishIsAnnounced", "announcedForObservers",
            ])
            #if canImport(ObjectiveC)
                // The queue observes "isFinished" too, so it may never learn the finish either.
                expect(
                    Expected(
                        mistake: .didWithoutWill, fails: [.announcedForObservers], mayAlsoFail: [.finishIsAnnounced]),
                    child)
            #else
                // Linux's Foundation ignores willChangeValue(forKey:): nothing to see, and said so.
                #expect(
                    child.verdicts == [.finishIsAnnounced: .passed, .announcedForObservers: .notChecked],
                    "\(child.report)")
            #endif
        }

        private func expect(_ expected: Expected, _ child: ContractChild) {
            #expect(child.status == 0, "contract-checks ended with status \(String(describing: child.status))")
            expect(expected, failed(in: child.verdicts), child.report)
        }
    #endif

    /// The clauses that failed.
    private func failed(in verdicts: [ContractClause: ClauseVerdict]) -> Set<ContractClause> {
        Set(verdicts.filter { $0.value == .failed }.keys)
    }

    private func expect(_ expected: Expected, _ failed: Set<ContractClause>, _ report: String) {
        let missing = expected.fails.subtracting(failed)
        let extra = failed.subtracting(expected.fails).subtracting(expected.mayAlsoFail)
        #expect(
            missing.isEmpty && extra.isEmpty,
            "\(expected.mistake): should fail \(expected.fails.map(\.rawValue).sorted()), but missed \(missing.map(\.rawValue).sorted()) and also failed \(extra.map(\.rawValue).sorted())\n\(report)"
        )
    }
}
