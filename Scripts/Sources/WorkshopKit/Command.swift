/// A command of `Scripts/workshop`, parsed from its arguments.
public enum Command: Equatable, Sendable {
    case list
    case next
    case check(Int)
    case watch(Int?)
    case hint(Int)
    case solution(Int)
    case reset(Int)
    case restore(Int)
    /// Every exercise, or only those named.
    case verify([Int])
    case help
    /// For the workshop's authors: writes the files that follow from the exercises' folders.
    case sync
    /// For the workshop's authors: puts a wrong answer or an alternative into the exercise's
    /// file (the file's own version kept, as by `reset`), or saves the file's change to the
    /// solution as that variant.
    case variant(Int, String, save: Bool)
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
                        you save it; keys for the hint, reset, running the chapter, the next exercise
          hint N        a hint for exercise N
          solution N    the reference solution, as a diff against the stub
          reset N       puts exercise N's stub back; your version is kept, `restore N` brings it back
          restore N     brings back the version of exercise N that `reset N` kept
          verify [N…]   for CI: every solution and correct alternative passes, every stub and wrong
                        answer fails (on a copy: your files are never touched); only exercises N…
                        if named
          help          this text

        For the workshop's authors:
          sync          writes what follows from the exercises' folders: the Xcode schemes and the
                        session table of Chapters/Workshop/README.md
          variant N WrongAnswers/NAME         puts that wrong answer (or Alternatives/NAME) into
                                              exercise N's file; what was there is kept, as by reset
          variant N WrongAnswers/NAME --save  saves the file's change to the solution as that
                                              variant (a new one gets a header to fill in)
          mutants [N…]  checks each mechanical variant of the solutions (of exercises N…): those
                        that change what the exercise asks must fail, the equivalent ones pass;
                        prints each exercise's score and the survivors. --list only lists them,
                        --only TEXT checks those whose name contains TEXT, --save writes the
                        scores into Chapters/Workshop/README.md
          equivalent N "NAME" "REASON"  records mutant NAME of exercise N as equivalent, because
                        REASON, in its Reference/EquivalentMutants.md

        N is the exercise's number, as in its folder (2 or 02). A check that runs out of time is
        stopped, with every process it started, and says what that usually means.
        """

    /// Parses the arguments after the script's name.
    public init(arguments: [String], exercises: [Int]) throws {
        guard let name = arguments.first else {
            throw WorkshopError("which command?\n\n\(Self.usage)", status: 2)
        }
        let rest = Array(arguments.dropFirst())

        func exercise(_ text: String) throws -> Int {
            guard let value = Int(text), value >= 0, text.allSatisfy(\.isNumber) else {
                throw WorkshopError(
                    "'\(text)' is not an exercise's number (the exercises: \(Self.list(exercises)))", status: 2)
            }
            guard exercises.contains(value) else {
                throw WorkshopError("there is no exercise \(text) (the exercises: \(Self.list(exercises)))", status: 2)
            }
            return value
        }

        func number(required: Bool) throws -> Int? {
            guard let text = rest.first else {
                if required {
                    throw WorkshopError(
                        "\(name) needs an exercise's number, e.g. `\(name) 2` (the exercises: \(Self.list(exercises)))",
                        status: 2)
                }
                return nil
            }
            return try exercise(text)
        }

        func noMore(after count: Int) throws {
            guard rest.count > count else { return }
            let extra = rest.dropFirst(count).map { "'\($0)'" }.joined(separator: " ")
            throw WorkshopError(
                "\(name) takes \(count == 0 ? "no arguments" : "one exercise number"); unexpected: \(extra)", status: 2)
        }

        switch name {
        case "list":
            try noMore(after: 0)
            self = .list
        case "next":
            try noMore(after: 0)
            self = .next
        case "verify":
            let numbers = try rest.map(exercise)
            self = .verify(numbers)
        case "mutants":
            var numbers: [Int] = []
            var (list, save, only) = (false, false, String?.none)
            var words = rest[...]
            while let word = words.popFirst() {
                switch word {
                case "--list": list = true
                case "--save": save = true
                case "--only":
                    guard let text = words.popFirst() else { throw WorkshopError("--only needs a text", status: 2) }
                    only = text
                default: numbers.append(try exercise(word))
                }
            }
            if save, only != nil { throw WorkshopError("--save writes whole scores: not with --only", status: 2) }
            self = .mutants(numbers, list: list, save: save, only: only)
        case "equivalent":
            let value = try number(required: true)!
            guard rest.count == 3, !rest[1].isEmpty, !rest[2].isEmpty else {
                throw WorkshopError("equivalent takes an exercise's number, a mutant's name and a reason", status: 2)
            }
            self = .equivalent(value, name: rest[1], reason: rest[2])
        case "help", "--help", "-h":
            try noMore(after: 0)
            self = .help
        case "sync":
            try noMore(after: 0)
            self = .sync
        case "variant":
            let value = try number(required: true)!
            let rest = rest.dropFirst()
            guard let name = rest.first, rest.count <= 2, rest.count == 1 || rest.last == "--save" else {
                throw WorkshopError(
                    "variant takes an exercise's number, a variant (e.g. WrongAnswers/no-lock), and maybe --save",
                    status: 2)
            }
            self = .variant(value, name, save: rest.count == 2)
        case "watch":
            try noMore(after: 1)
            self = .watch(try number(required: false))
        case "check", "hint", "solution", "reset", "restore":
            try noMore(after: 1)
            let value = try number(required: true)!
            switch name {
            case "check": self = .check(value)
            case "hint": self = .hint(value)
            case "solution": self = .solution(value)
            case "reset": self = .reset(value)
            default: self = .restore(value)
            }
        default:
            throw WorkshopError("unknown command '\(name)'\n\n\(Self.usage)", status: 2)
        }
    }

    static func list(_ numbers: [Int]) -> String {
        guard let first = numbers.first, let last = numbers.last else { return "none" }
        return numbers == Array(first...last) ? "\(first) to \(last)" : numbers.map(String.init).joined(separator: ", ")
    }
}
