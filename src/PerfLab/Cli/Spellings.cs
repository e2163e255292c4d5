using System.CommandLine;

namespace PerfLab.Cli;

/// <summary>
/// Spellings changed so that a letter means one thing on every verb and a flag needs no value, each old spelling
/// answered for one release. A retired letter is a usage error, not a note: read the new way, `-p quick` would be a
/// process id and `-n 1000` a process name, so it must stop rather than run something else.
/// </summary>
internal static class Spellings
{
    /// <summary>
    /// A letter this verb gave up (hidden): using it fails with a message naming the long spelling and the value typed.
    /// </summary>
    /// <param name="why">What the letter means now, and where.</param>
    public static Option<string?> RetiredLetter(string letter, string longName, string why)
    {
        var option = new Option<string?>(letter) { Hidden = true, Arity = ArgumentArity.ZeroOrOne };
        option.Validators.Add(r =>
        {
            var value = r.Tokens.Count > 0 ? " " + r.Tokens[0].Value : " VALUE";
            r.AddError($"{letter} is no longer {longName} here ({why}); write {longName}{value}.");
        });
        return option;
    }

    /// <summary>A note on stderr (stdout may be --json's) that an old spelling still works this release only.</summary>
    public static void Deprecated(string old, string now) =>
        Console.Error.WriteLine($"note: {old} is written {now} now; the old spelling stops working in the next release.");
}

/// <summary>
/// A boolean as two flags, `--trace` and `--no-trace`; unset leaves the default to the caller. `--trace false` and
/// `--trace true` are still read, with a note, for one release.
/// </summary>
internal sealed class FlagPair
{
    private readonly string _name;

    public FlagPair(string name, string onDescription, string offDescription)
    {
        _name = name;
        On = new Option<bool?>("--" + name) { Description = onDescription, Arity = ArgumentArity.ZeroOrOne };
        Off = new Option<bool>("--no-" + name) { Description = offDescription, Arity = ArgumentArity.Zero };
    }

    public Option<bool?> On { get; }

    public Option<bool> Off { get; }

    public void AddTo(Command command)
    {
        command.Options.Add(On);
        command.Options.Add(Off);
        command.Validators.Add(r =>
        {
            if (r.GetResult(On) is not null && r.GetResult(Off) is not null)
            {
                r.AddError($"--{_name} and --no-{_name} contradict each other; give one.");
            }
        });
    }

    /// <summary>True, false, or null when neither flag was given.</summary>
    public bool? Read(ParseResult parse)
    {
        if (parse.GetValue(Off))
        {
            return false;
        }
        if (parse.GetResult(On) is not { } on)
        {
            return null;
        }
        var value = parse.GetValue(On) ?? true;
        if (on.Tokens.Count > 0)
        {
            Spellings.Deprecated($"--{_name} {on.Tokens[0].Value}", value ? $"--{_name}" : $"--no-{_name}");
        }
        return value;
    }
}

/// <summary>
/// `--experiments-dir`, the folder of experiment files, named apart from `run`'s experiments (names); the old
/// `--experiments` is read, with a note, for one release.
/// </summary>
internal sealed class ExperimentsFolder
{
    public Option<string?> Dir { get; } = new("--experiments-dir")
    {
        Description = "Folder of experiment files (default: the experiments/ folder of this checkout, or of the installed tool).",
        HelpName = "folder",
    };

    private readonly Option<string?> _old = new("--experiments") { Hidden = true };

    public void AddTo(Command command)
    {
        command.Options.Add(Dir);
        command.Options.Add(_old);
        command.Validators.Add(r =>
        {
            if (r.GetResult(Dir) is not null && r.GetResult(_old) is not null)
            {
                r.AddError("--experiments is the old spelling of --experiments-dir; give the folder once, as --experiments-dir.");
            }
        });
    }

    /// <summary>The folder asked, or the default one.</summary>
    public string Read(ParseResult parse)
    {
        if (parse.GetValue(_old) is { } old)
        {
            Spellings.Deprecated("--experiments DIR", "--experiments-dir DIR");
            return old;
        }
        return parse.GetValue(Dir) ?? Experiments.Definitions.ExperimentLoader.DefaultFolder;
    }
}
