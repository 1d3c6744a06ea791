/// A command of `Scripts/workshop`, parsed from its arguments.
public enum Command: Equatable, Sendable {
    case list
    case next
    case check(Int)
    case watch(Int?)
    case hint(Int)
    case solution(Int)
    case reset(Int)
    /// Every exercise, or only those named.
    case verify([Int])
    case help
    /// For the workshop's authors: writes the files that follow from the exercises' folders.
    case sync
    /// For the workshop's authors: checks the mutants of the exercises' solutions (all of them,
    /// or those named); lists them only; writes the scores into the workshop's page; only the
    /// mutants whose name contains a text.
    case mutants([Int], list: Bool, save: Bool, only: String?)
    /// For the workshop's authors: records a mutant of exercise N as equivalent, with why.
    case equivalent(Int, name: String, reason: String)

    /// The commands, as `help` and a usage error list them.
    public static let usage = """
        Scripts/workshop — the exercises of AsyncOperationsPlayground, one per chapter.

          list          every exercise and whether it passes: your progress at a glance
          next          checks the exercises in order and stops at the first one that does not pass
                        yet; exits with 1 until every exercise passes
          check N       builds and tests exercise N on its own: what fails, as it happens; a pass
                        is run twice (the second time under ThreadSanitizer for the exercises
                        about shared state)
          watch [N]     works on exercise N (or the next unfinished one): checks it again each time
                        you save it; keys for the hint, reset, the list, the next exercise
          hint N        a hint for exercise N
          solution N    the reference solution, as a diff against the stub
          reset N       puts exercise N's stub back; your version is kept (it says where)
          help          this text

        For the workshop's authors:
          verify [N…]   every solution and alternative passes, every stub and wrong answer fails
                        (in copies of the repository: your files are never touched)
          sync          writes the exercises' Xcode schemes and the session table of
                        Chapters/Workshop/README.md
          mutants [N…]  checks each mechanical variant of what the solutions write over their stubs:
                        those that change what the exercise asks must fail, the equivalent ones
                        pass; prints each exercise's
                        score and the survivors. --list only lists them, --only TEXT checks those
                        whose name contains TEXT, --save writes the scores into the workshop's page
          equivalent N "NAME" "REASON"  records mutant NAME of exercise N as equivalent, because
                        REASON, in its Reference/EquivalentMutants.md

        N is the exercise's number, as in its folder (2 or 02).
        """

    /// Parses the arguments after the script's name.
    public init(arguments: [String], exercises: [Int]) throws {
        guard let name = arguments.first else { throw WorkshopError("which command?\n\n\(Self.usage)", status: 2) }
        let rest = Array(arguments.dropFirst())
        let known = exercises.map(String.init).joined(separator: ", ")
        func exercise(_ text: String) throws -> Int {
            guard let value = Int(text), text.allSatisfy(\.isNumber), exercises.contains(value) else {
                throw WorkshopError("there is no exercise '\(text)' (the exercises: \(known))", status: 2)
            }
            return value
        }
        func only(_ count: Int) throws {
            guard rest.count > count else { return }
            let extra = rest.dropFirst(count).map { "'\($0)'" }.joined(separator: " ")
            throw WorkshopError(
                "\(name) takes \(count == 0 ? "no arguments" : "one exercise number"); unexpected: \(extra)", status: 2)
        }
        func number() throws -> Int {
            guard let text = rest.first else {
                throw WorkshopError(
                    "\(name) needs an exercise's number, e.g. `\(name) 2` (the exercises: \(known))", status: 2)
            }
            return try exercise(text)
        }

        switch name {
        case "list", "next", "sync", "help", "--help", "-h":
            try only(0)
            self = ["list": .list, "next": .next, "sync": .sync][name] ?? .help
        case "watch":
            try only(1)
            self = .watch(rest.isEmpty ? nil : try number())
        case "check", "hint", "solution", "reset":
            try only(1)
            let value = try number()
            self = ["check": .check(value), "hint": .hint(value), "solution": .solution(value)][name] ?? .reset(value)
        case "verify":
            self = .verify(try rest.map(exercise))
        case "mutants":
            var (numbers, list, save, text) = ([Int](), false, false, String?.none)
            var words = rest[...]
            while let word = words.popFirst() {
                switch word {
                case "--list": list = true
                case "--save": save = true
                case "--only":
                    guard let next = words.popFirst() else { throw WorkshopError("--only needs a text", status: 2) }
                    text = next
                default: numbers.append(try exercise(word))
                }
            }
            if save, text != nil { throw WorkshopError("--save writes whole scores: not with --only", status: 2) }
            self = .mutants(numbers, list: list, save: save, only: text)
        case "equivalent":
            let value = try number()
            guard rest.count == 3, !rest[1].isEmpty, !rest[2].isEmpty else {
                throw WorkshopError("equivalent takes an exercise's number, a mutant's name and a reason", status: 2)
            }
            self = .equivalent(value, name: rest[1], reason: rest[2])
        default:
            throw WorkshopError("unknown command '\(name)'\n\n\(Self.usage)", status: 2)
        }
    }
}
