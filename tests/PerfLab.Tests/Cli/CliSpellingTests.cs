using System.CommandLine;
using PerfLab.Cli;
using PerfLab.Common;

namespace PerfLab.Tests.Cli;

/// <summary>
/// A letter means one thing on every verb; a letter a verb gave up, and the old value-taking booleans and
/// `--experiments`, are answered for one release with the new spelling.
/// </summary>
public sealed class CliSpellingTests
{
    [Fact]
    public void ShortAliases_EveryVerb_MeanOneLongNameEach()
    {
        var meanings = new Dictionary<string, SortedSet<string>>();
        foreach (var (verb, command) in Verbs(PerfLabCli.CreateRoot(), "perflab"))
        {
            foreach (var option in command.Options.Where(o => !o.Hidden))
            {
                foreach (var letter in option.Aliases.Prepend(option.Name).Where(IsLetter))
                {
                    meanings.TryAdd(letter, []);
                    meanings[letter].Add($"{option.Name} ({verb})");
                }
            }
        }

        var clashes = meanings
            .Where(m => m.Value.Select(v => v[..v.IndexOf(' ', StringComparison.Ordinal)]).Distinct().Count() > 1)
            .Select(m => $"{m.Key}: {string.Join(", ", m.Value)}")
            .ToList();
        Assert.True(clashes.Count == 0, "letters with two meanings:\n" + string.Join("\n", clashes));
        Assert.True(meanings.ContainsKey("-p") && meanings.ContainsKey("-c"), "the walk must see the verbs' letters");
    }

    [Theory]
    [InlineData("run -p quick", "write --profile quick")]
    [InlineData("compare app --url / --variant a --variant b -p smoke", "write --profile smoke")]
    [InlineData("load http://127.0.0.1:9/ -n 1000", "write --requests 1000")]
    [InlineData("report results/x -f md", "write --format md")]
    [InlineData("run --trace --no-trace", "--trace and --no-trace contradict")]
    [InlineData("list --experiments a --experiments-dir b", "give the folder once, as --experiments-dir")]
    public async Task OldSpelling_RetiredLetter_IsAUsageErrorNamingTheNewOne(string line, string expected)
    {
        var args = line.Split(' ');

        var parse = PerfLabCli.CreateRoot().Parse(args);

        Assert.Contains(parse.Errors, e => e.Message.Contains(expected, StringComparison.Ordinal));
        Assert.Equal((int)ExitCode.Usage, await PerfLabCli.RunAsync(args));
    }

    [Theory]
    [InlineData("", null)]
    [InlineData("--trace", true)]
    [InlineData("--no-trace", false)]
    [InlineData("--trace false", false)]
    [InlineData("--trace true", true)]
    public void FlagPair_EachSpelling_ReadsItsValue(string line, bool? expected)
    {
        var flag = new FlagPair("trace", "on", "off");
        var command = new RootCommand();
        flag.AddTo(command);

        var parse = command.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries));

        Assert.Empty(parse.Errors);
        Assert.Equal(expected, flag.Read(parse));
    }

    [Fact]
    public void ExperimentsFolder_OldSpelling_StillReadsTheFolder()
    {
        var folder = new ExperimentsFolder();
        var command = new RootCommand();
        folder.AddTo(command);

        Assert.Equal("mine", folder.Read(command.Parse(["--experiments-dir", "mine"])));
        Assert.Equal("mine", folder.Read(command.Parse(["--experiments-dir", "mine"])));
    }

    private static bool IsLetter(string alias) => alias.Length == 2 && alias[0] == '-' && alias[1] != '-';

    private static IEnumerable<(string Verb, Command Command)> Verbs(Command command, string path)
    {
        yield return (path, command);
        foreach (var sub in command.Subcommands)
        {
            foreach (var deeper in Verbs(sub, path + " " + sub.Name))
            {
                yield return deeper;
            }
        }
    }
}
