using System.CommandLine;
using System.Text.RegularExpressions;
using PerfLab.Cli;

namespace PerfLab.Tests.Cli;

/// <summary>Every verb's --help as a user reads it: values written as typed, choices in lower case, -o said to be a file or a folder.</summary>
public sealed partial class CliHelpTests
{
    public static TheoryData<string> Verbs()
    {
        var data = new TheoryData<string>();
        foreach (var path in Paths(PerfLabCli.CreateRoot(), ""))
        {
            data.Add(path);
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(Verbs))]
    public void Help_EveryVerb_ShowsValuesAsTyped(string verb)
    {
        var help = Help(verb);

        Assert.DoesNotMatch(TimeSpanDefault(), help);           // 20m, not 00:20:00
        Assert.DoesNotMatch(PipedDefault(), help);              // a list default as typed, with commas
        Assert.DoesNotMatch(UpperCaseChoice(), help);           // --source <auto|meter|eventcounters>
        if (help.Contains("-o, --out", StringComparison.Ordinal))
        {
            Assert.Matches(@"-o, --out <(file|folder)>", help);
        }
    }

    [Fact]
    public void Help_CountersCollect_TakesDotnetCountersHabits()
    {
        var help = Help("counters collect");

        Assert.Contains("-p, --process-id <pid>", help, StringComparison.Ordinal);
        Assert.Contains("-n, --name <name>", help, StringComparison.Ordinal);
        Assert.Contains("--refresh-interval", help, StringComparison.Ordinal);
        Assert.Contains("--counters <provider[counter,...],...>", help, StringComparison.Ordinal);
        Assert.Contains("-- COMMAND ARGS...", help, StringComparison.Ordinal);
    }

    private static string Help(string verb)
    {
        var output = new StringWriter();
        var exit = PerfLabCli.CreateRoot().Parse([.. verb.Split(' ', StringSplitOptions.RemoveEmptyEntries), "--help"])
            .Invoke(new InvocationConfiguration { Output = output });
        Assert.Equal(0, exit);
        return output.ToString();
    }

    private static IEnumerable<string> Paths(Command command, string prefix)
    {
        foreach (var sub in command.Subcommands)
        {
            var path = (prefix + " " + sub.Name).Trim();
            yield return path;
            foreach (var deeper in Paths(sub, path))
            {
                yield return deeper;
            }
        }
    }

    [GeneratedRegex(@"\[default: -?\d+:\d\d:\d\d")]
    private static partial Regex TimeSpanDefault();

    [GeneratedRegex(@"\[default: [^\]]*\|")]
    private static partial Regex PipedDefault();

    [GeneratedRegex(@"<[A-Z][a-zA-Z]*\|")]
    private static partial Regex UpperCaseChoice();
}
