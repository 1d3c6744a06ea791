import Foundation

/// "completed/total (percent)" of a progress, as the chapter prints it.
public func describe(_ progress: Progress) -> String {
    let percent = Int((progress.fractionCompleted * 100).rounded())
    return "\(progress.completedUnitCount)/\(progress.totalUnitCount) (\(percent)%)"
}
