// Runs the kit on one of the chapters' versions or on one mistake of BrokenOperation, and
// prints the report (ReportLines), for OperationContractTests. A process of its own: those
// checks leave threads blocked and operations that never finish (the kit keeps them for good),
// and the posts' operations print "Starting".
//
//   contract-checks version <CheckedVersion>
//   contract-checks mistake <BrokenOperation.Mistake> [<ContractClause> ...]
import ContractSubjects
import Foundation
import OperationContract

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: contract-checks version <name> | mistake <name> [clause ...]"
switch (arguments.first, arguments.dropFirst().first) {
case ("version", let name?):
    guard let version = CheckedVersion(rawValue: name) else { fatalError("no version \(name); \(usage)") }
    ReportLines.print(await version.check())
case ("mistake", let name?):
    guard let mistake = BrokenOperation.Mistake(rawValue: name) else { fatalError("no mistake \(name); \(usage)") }
    let named = arguments.dropFirst(2).compactMap(ContractClause.init(rawValue:))
    let clauses = named.isEmpty ? ContractClause.allCases : named
    ReportLines.print(await checkContract(clauses: clauses, result: \.result) { BrokenOperation(mistake, $0) })
default:
    fatalError(usage)
}
exit(0)  // the kit's threads that hang, and the operations it keeps, stay behind
