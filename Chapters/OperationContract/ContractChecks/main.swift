// Runs the kit on one of the chapters' versions, one mistake of BrokenOperation, one of the
// trial subjects or one of the bases from apps and libraries, and prints the report (ReportLines), for OperationContractTests. A process of
// its own: those checks leave threads blocked and operations that never finish (the kit keeps
// them for good), and the posts' operations print "Starting".
//
//   contract-checks [--patience SECONDS] version <CheckedVersion> [<ContractClause> ...]
//   contract-checks [--patience SECONDS] mistake <BrokenOperation.Mistake> [<ContractClause> ...]
//   contract-checks [--patience SECONDS] trial <TrialSubject> [<ContractClause> ...]
//   contract-checks [--patience SECONDS] base <AppBase> [<ContractClause> ...]
import ContractSubjects
import Foundation
import OperationContract

var arguments = Array(CommandLine.arguments.dropFirst())
var patience = 2.0
if arguments.first == "--patience", arguments.count > 1, let seconds = Double(arguments[1]) {
    patience = seconds
    arguments.removeFirst(2)
}
let usage = "usage: contract-checks [--patience SECONDS] version|mistake|trial|base <name> [clause ...]"
guard arguments.count >= 2 else { fatalError(usage) }
let named = arguments.dropFirst(2).map { name in
    guard let clause = ContractClause(rawValue: name) else { fatalError("no clause \(name); \(usage)") }
    return clause
}
let clauses = named.isEmpty ? ContractClause.allCases : named
let name = arguments[1]
switch arguments[0] {
case "version":
    guard let version = CheckedVersion(rawValue: name) else { fatalError("no version \(name); \(usage)") }
    ReportLines.print(await version.check(clauses: clauses, patience: patience))
case "mistake":
    guard let mistake = BrokenOperation.Mistake(rawValue: name) else { fatalError("no mistake \(name); \(usage)") }
    ReportLines.print(
        await checkContract(clauses: clauses, patience: patience, result: \.result) { BrokenOperation(mistake, $0) })
case "trial":
    guard let subject = TrialSubject(rawValue: name) else { fatalError("no trial subject \(name); \(usage)") }
    ReportLines.print(await subject.check(clauses: clauses, patience: patience))
case "base":
    guard let base = AppBase(rawValue: name) else { fatalError("no base \(name); \(usage)") }
    ReportLines.print(await base.check(clauses: clauses, patience: patience))
default:
    fatalError(usage)
}
exit(0)  // the kit's threads that hang, and the operations it keeps, stay behind
