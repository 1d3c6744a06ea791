// Chapter 3's ending: the package's OperationContract kit, run on the articles' bases and on
// this chapter's AsyncOperation. Each is wrapped around the kit's work the way an app would
// (Chapters/OperationContract/Subjects); the kit's report says what it saw; this prints the clauses that failed.
import ContractSubjects
import Foundation
import OperationContract

let bases: [CheckedVersion] = [
    .concurrentSolutionsBase, .fileUploadCancel, .asyncAwaitBase, .everythingToKnowBase, .asyncOperation,
]
for base in bases {
    let report = await withoutPrinting { await base.check() }
    let name = base.label.replacingOccurrences(of: "`", with: "")
    print(report.passed ? "\(name): passes every clause checked" : "\(name) fails:")
    for failure in report.failures {
        print("  x \(failure.clause.summary) (chapter \(failure.clause.chapter))")
    }
}
// A failed clause can leave the kit's threads blocked for good: end here, as contract-checks does.
exit(0)

/// Runs `body` with standard output sent to /dev/null: the articles' bases print "Starting"
/// from `start()`, hundreds of times in one check (and Linux's Foundation prints its warnings
/// there too; the failed clauses say what they were about).
func withoutPrinting<Value>(_ body: () async -> Value) async -> Value {
    fflush(nil)
    let printing = dup(STDOUT_FILENO)
    let nowhere = open("/dev/null", O_WRONLY)
    dup2(nowhere, STDOUT_FILENO)
    close(nowhere)
    let value = await body()
    fflush(nil)
    dup2(printing, STDOUT_FILENO)
    close(printing)
    return value
}
