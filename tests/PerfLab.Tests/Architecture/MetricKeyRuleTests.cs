using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using PerfLab.Results;

namespace PerfLab.Tests.Architecture;

/// <summary>
/// A metric's one identity is its catalog entry, from the experiment file to results.json: its key, its threshold
/// spellings and its <c>decide:</c> word are written in the catalog only (<c>Results/Metrics.cs</c>; a counter's name in
/// <c>Common/CounterNames.cs</c>, which its entry takes its key from), and everything else reaches the metric through
/// the entry. A string literal elsewhere in src/PerfLab that spells one ("rps", "p99-ms", "cost", "time-in-gc") is a
/// second identity that the catalog no longer governs. Comments and text around other words do not count: only a literal
/// that is the spelling, whole.
/// </summary>
public sealed class MetricKeyRuleTests
{
    private static readonly string[] Catalog = ["PerfLab/Results/Metrics.cs", "PerfLab/Common/CounterNames.cs"];

    // Spellings that are also ordinary words perflab uses for other things; a literal of one says nothing of a metric.
    private static readonly Dictionary<string, string> AlsoOtherThings = new()
    {
        ["max"] = "the capacity block's highest rate (max:), option bounds",
        ["latency"] = "report sections and the network proxy's delay",
        ["capacity"] = "the capacity: block of an experiment file, the capacity verb, report sections",
    };

    // Literals in layers that cannot see the catalog (peers use Common only), each with its reason. An entry leaves this
    // list in the commit that removes the literal.
    private static readonly Dictionary<string, string> Outside = new()
    {
        ["PerfLab/Load/LoadDisplay.cs: p99"] = "the load verb's console column, in Load (a peer: it cannot use Results)",
    };

    [Fact]
    public void Sources_OutsideTheCatalog_SpellNoMetric()
    {
        var spellings = Spellings();
        var found = Found(spellings).Where(f => !Outside.ContainsKey(f.Key)).Select(f => f.Where).ToList();

        Assert.True(found.Count == 0,
            $"{found.Count} literals spell a metric outside the catalog (reach it through its entry in Results/Metrics.cs, "
            + $"e.g. Metrics.Rps, Metrics.Deciding(word)):\n{string.Join('\n', found)}");
    }

    [Fact]
    public void Outside_EachEntryIsStillNeeded()
    {
        var found = Found(Spellings()).Select(f => f.Key).ToHashSet();

        Assert.All(Outside.Keys, entry => Assert.True(found.Contains(entry), $"{entry} no longer holds the literal: remove it"));
    }

    [Fact]
    public void Spellings_KeysThresholdNamesAndDecideWords_ButNotWordsOfOtherThings()
    {
        var spellings = Spellings();

        Assert.Superset(new HashSet<string> { "rps", "p99-ms", "p99", "p999", "cost", "time-in-gc", "cpu-per-request-full-speed" },
            spellings);
        Assert.DoesNotContain("max", spellings);
        // Each word left out is a spelling the catalog really has, so the list cannot hide a key by mistake.
        var all = Metrics.All.SelectMany(m => m.ThresholdNames.Append(m.Key).Append(m.DecideWord ?? "")).ToHashSet();
        Assert.All(AlsoOtherThings.Keys, word => Assert.Contains(word, all));
        Assert.All(AlsoOtherThings.Keys, word => Assert.DoesNotContain(word, Metrics.All.Select(m => m.Key)));
    }

    [Fact]
    public void Literals_CodeCommentsAndInterpolations_OnlyWholeLiteralsOfCode()
    {
        const string text = """
            namespace N;
            /// <summary>The "rps" of a run.</summary>
            static class C
            {
                // "p99" in a comment
                const string A = "rps";
                static string B(int n) => $"{n} rps" + @"cost" + $"p99-ms";
                const string D = "rps-change";
            }
            """;

        var literals = Literals(text).Where(l => Spellings().Contains(l.Text)).Select(l => (l.Text, l.Line)).ToList();

        Assert.Equal([("rps", 6), ("cost", 7), ("p99-ms", 7)], literals);
    }

    private static HashSet<string> Spellings() =>
    [
        .. Metrics.All.SelectMany(m => m.ThresholdNames.Append(m.Key).Concat(m.DecideWord is { } w ? [w] : []))
            .Where(s => !AlsoOtherThings.ContainsKey(s)),
    ];

    private static IEnumerable<(string Key, string Where)> Found(HashSet<string> spellings) =>
        SourceFiles.InSrc()
            .Where(s => s.Relative.StartsWith("PerfLab/", StringComparison.Ordinal) && !Catalog.Contains(s.Relative))
            .SelectMany(s => Literals(s.Text).Where(l => spellings.Contains(l.Text))
                .Select(l => ($"{s.Relative}: {l.Text}", $"{s.Relative}:{l.Line}: \"{l.Text}\"")));

    // String literals of every kind, and the text parts of interpolated strings, with their 1-based lines.
    private static IEnumerable<(string Text, int Line)> Literals(string text) =>
        CSharpSyntaxTree.ParseText(text).GetRoot().DescendantTokens()
            .Where(t => t.IsKind(SyntaxKind.StringLiteralToken) || t.IsKind(SyntaxKind.InterpolatedStringTextToken)
                || t.IsKind(SyntaxKind.SingleLineRawStringLiteralToken) || t.IsKind(SyntaxKind.MultiLineRawStringLiteralToken)
                || t.IsKind(SyntaxKind.Utf8StringLiteralToken))
            .Select(t => (t.ValueText, t.GetLocation().GetLineSpan().StartLinePosition.Line + 1));
}
