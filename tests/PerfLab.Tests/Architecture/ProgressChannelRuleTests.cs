using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace PerfLab.Tests.Architecture;

/// <summary>
/// Progress has one channel: a line of progress is reported to an <c>IProgress&lt;string&gt;</c> (a run's
/// <c>IRunObserver</c> is one), a figure as it comes to an <c>IProgress&lt;T&gt;</c> of its type. Four channels once
/// carried the same lines (the observer's own method, <c>Action&lt;string&gt;</c>, <c>IProgress&lt;string&gt;</c>,
/// <c>TextWriter</c>), and every hand-over between them was an adapter. An <c>Action&lt;string&gt;</c> declared in
/// src/PerfLab, or a <c>TextWriter</c> named for progress (log, say, console, ...), is a second channel coming back.
/// TextWriters stay where output is written (reports, a role's protocol lines, a verb's answer) under output's names;
/// an <c>Action&lt;string&gt;</c> that hands over something other than progress is listed here with its reason.
/// </summary>
public sealed class ProgressChannelRuleTests
{
    private static readonly HashSet<string> ProgressNames =
        ["progress", "say", "tell", "log", "console", "message", "messages", "status", "report", "onprogress", "onmessage"];

    // Declarations that are not progress, each with its reason. An entry leaves this list in the commit that removes it.
    private static readonly Dictionary<string, string> NotProgress = new()
    {
        ["PerfLab/Common/ProcessSpec.cs: OnOutputLine"] = "a child process's standard output lines, for its caller to keep or parse",
        ["PerfLab/Common/ProcessSpec.cs: OnErrorLine"] = "a child process's standard error lines, likewise",
        ["PerfLab/Common/ProcessRunner.cs: onLine"] = "the same lines, forwarded from the process's events",
        ["PerfLab/Micro/MicroSuite.cs: onLine"] = "dotnet's output lines, into BenchmarkDotNet's log (the progress is picked from them)",
        ["PerfLab/Hosts/RoleSession.cs: handler"] = "a role's protocol lines of one kind (sample, trace, ...) to their reader",
        ["PerfLab/Cli/CapacityCommand.cs: log"] = "the capacity verb's own output (its steps and answer; stderr under --json)",
    };

    [Fact]
    public void Sources_ReportProgressThroughIProgressOnly()
    {
        var found = Found().Where(f => !NotProgress.ContainsKey(f.Key)).Select(f => f.Where).ToList();

        Assert.True(found.Count == 0,
            $"{found.Count} declarations are a second progress channel (take an IProgress<string>; a run's IRunObserver is "
            + $"one; or, if it is not progress, list it in NotProgress with its reason):\n{string.Join('\n', found)}");
    }

    [Fact]
    public void NotProgress_EachEntryIsStillNeeded()
    {
        var found = Found().Select(f => f.Key).ToHashSet();

        Assert.All(NotProgress.Keys, entry => Assert.True(found.Contains(entry), $"{entry} is no longer declared: remove it"));
    }

    [Fact]
    public void Declarations_ActionOfStringAnywhereAndTextWritersNamedForProgress_ButNotOutputWriters()
    {
        const string text = """
            namespace N;
            sealed class C(System.Action<string> message, TextWriter output)
            {
                private readonly TextWriter _log = Console.Out;
                public Action<string>? OnLine { get; init; }
                public IProgress<string>? Progress { get; init; }
                void M(TextWriter w, IProgress<string> say, Action<int> count)
                {
                    TextWriter console = Console.Out;
                    var writer = Console.Error;
                }
            }
            """;

        var found = Declarations(text).Select(d => (d.Name, d.Line)).ToList();

        Assert.Equal([("message", 2), ("_log", 4), ("OnLine", 5), ("console", 9)], found);
    }

    private static IEnumerable<(string Key, string Where)> Found() =>
        SourceFiles.InSrc()
            .Where(s => s.Relative.StartsWith("PerfLab/", StringComparison.Ordinal))
            .SelectMany(s => Declarations(s.Text)
                .Select(d => ($"{s.Relative}: {d.Name}", $"{s.Relative}:{d.Line}: {d.Type} {d.Name}")));

    // Parameters, properties, fields and locals of a progress-like type, with their 1-based lines, in source order.
    private static IEnumerable<(string Type, string Name, int Line)> Declarations(string text) =>
        CSharpSyntaxTree.ParseText(text).GetRoot().DescendantNodes()
            .SelectMany(Typed)
            .Where(d => IsSecondChannel(d.Type.ToString(), d.Name.ValueText))
            .Select(d => (d.Type.ToString(), d.Name.ValueText, d.Name.GetLocation().GetLineSpan().StartLinePosition.Line + 1));

    private static IEnumerable<(TypeSyntax Type, SyntaxToken Name)> Typed(SyntaxNode node)
    {
        switch (node)
        {
            case ParameterSyntax { Type: { } type } parameter:
                yield return (type, parameter.Identifier);
                break;
            case PropertyDeclarationSyntax property:
                yield return (property.Type, property.Identifier);
                break;
            case VariableDeclarationSyntax variables:
                foreach (var variable in variables.Variables)
                {
                    yield return (variables.Type, variable.Identifier);
                }
                break;
        }
    }

    private static bool IsSecondChannel(string type, string name)
    {
        var bare = type.Replace(" ", "", StringComparison.Ordinal).TrimEnd('?').Replace("System.IO.", "", StringComparison.Ordinal)
            .Replace("System.", "", StringComparison.Ordinal);
        return bare == "Action<string>"
            || (bare == "TextWriter" && ProgressNames.Contains(name.TrimStart('_').ToLowerInvariant()));
    }
}
