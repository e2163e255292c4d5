namespace PerfLab.Tests.Architecture;

/// <summary>The size limits for src/: no file over 350 lines, no method over 60.</summary>
public sealed class SizeRuleTests
{
    private const int MaxFileLines = 350;
    private const int MaxMethodLines = 60;

    // Files the limits do not apply to, each with the reason. Paths are relative to src/, with forward slashes.
    private static readonly Dictionary<string, string> Allowed = new()
    {
    };

    [Fact]
    public void Sources_InSrc_WithinFileAndMethodLimits()
    {
        var oversized = new List<string>();
        var partials = new Dictionary<string, (int Lines, List<string> Files)>();
        foreach (var (relative, text) in Sources())
        {
            foreach (var (type, typeLines) in SourceSizes.PartialTypes(text))
            {
                var sum = partials.GetValueOrDefault(type, (0, []));
                sum.Files.Add(relative);
                partials[type] = (sum.Lines + typeLines, sum.Files);
            }
            if (Allowed.ContainsKey(relative))
            {
                continue;
            }
            if (SourceSizes.FileLines(text) is var lines and > MaxFileLines)
            {
                oversized.Add($"{relative}: {lines} lines (at most {MaxFileLines})");
            }
            oversized.AddRange(SourceSizes.Members(relative, text)
                .Where(m => m.Lines > MaxMethodLines)
                .Select(m => $"{relative}: {m.Member} has {m.Lines} lines (at most {MaxMethodLines})"));
        }

        // A type split over partial files is as long as its parts together: the file limit holds for it too.
        oversized.AddRange(partials.Where(p => p.Value.Lines > MaxFileLines && !Allowed.ContainsKey(p.Key))
            .Select(p => $"{p.Key}: {p.Value.Lines} lines over {string.Join(", ", p.Value.Files)} (at most {MaxFileLines} per type)"));

        Assert.True(oversized.Count == 0, $"{oversized.Count} over the size limits:\n{string.Join('\n', oversized)}");
    }

    // A folder of more files than this is split into rooms by concern; the flat folders named here are one concern each.
    private const int MaxFilesPerFolder = 25;

    private static readonly Dictionary<string, string> FlatFolders = new()
    {
        ["PerfLab/Reports"] = "one concern: rendering results (text, Markdown, HTML, JSON, JUnit, charts)",
        ["PerfLab/Load"] = "one concern: the load engine (models, feeds, transports, histograms)",
        ["PerfLab/Hosts"] = "one concern: roles on other machines over ssh",
        ["PerfLab/Cli"] = "one concern: the verbs and their options",
        ["PerfLab/Database"] = "one concern: the managed PostgreSQL cluster and the lab's data",
    };

    [Fact]
    public void Folders_InSrc_SplitIntoRoomsPastTheLimit()
    {
        var crowded = Sources()
            .GroupBy(s => s.Relative.Contains('/') ? s.Relative[..s.Relative.LastIndexOf('/')] : "")
            .Where(g => g.Count() > MaxFilesPerFolder && !FlatFolders.ContainsKey(g.Key))
            .Select(g => $"{g.Key}: {g.Count()} files (at most {MaxFilesPerFolder}; split it into rooms by concern)")
            .ToList();

        Assert.True(crowded.Count == 0, string.Join('\n', crowded));
        // Experiments/Running was one room of 39 files; its rooms are folders of their own now.
        Assert.Contains(Sources(), s => s.Relative.StartsWith("PerfLab/Experiments/Running/Blocks/", StringComparison.Ordinal));
        Assert.All(FlatFolders.Keys, folder => Assert.Contains(Sources(), s => s.Relative.StartsWith(folder + "/", StringComparison.Ordinal)));
    }

    [Fact]
    public void PartialTypes_SplitOverFiles_EachPartMeasuredUnderItsFullName()
    {
        const string first = "namespace N;\n\ninternal sealed partial class C\n{\n    void A() { }\n}\n";
        const string second = "namespace N\n{\n    partial class C\n    {\n        partial class Inner\n        {\n        }\n    }\n}\n";

        var parts = SourceSizes.PartialTypes(first).Concat(SourceSizes.PartialTypes(second)).ToList();

        Assert.Equal([("N.C", 4), ("N.C", 6), ("N.C.Inner", 3)], parts);
    }

    [Fact]
    public void Sources_AllowList_NamesFilesThatExist()
    {
        var present = Sources().Select(s => s.Relative).ToHashSet();

        Assert.All(Allowed, entry =>
        {
            Assert.Contains(entry.Key, present);
            Assert.False(string.IsNullOrWhiteSpace(entry.Value));
        });
        // Both projects are scanned: an empty scan would pass the rule by reading nothing.
        Assert.Contains("PerfLab/Program.cs", present);
        Assert.Contains("PerfLab.Sut/Program.cs", present);
    }

    [Fact]
    public void Members_EveryKindOfMethod_MeasuredFromFirstToLastToken()
    {
        const string code = """
            namespace N;

            sealed class C
            {
                /// <summary>Trivia before the first token is not counted.</summary>
                public C()
                {
                }

                int P
                {
                    get
                    {
                        return 1;
                    }
                    set { }
                }

                int Q => 1;

                void M()
                {
                    Local();

                    void Local()
                    {
                    }
                }

                public static C operator +(C a, C b) => a;
            }
            """;

        var sizes = SourceSizes.Members("c.cs", code).ToDictionary(s => s.Member, s => s.Lines);

        Assert.Equal(new Dictionary<string, int>
        {
            ["C..ctor"] = 3,
            ["C.P.get"] = 4,
            ["C.P.set"] = 1,
            ["C.Q.get"] = 1,
            ["C.M"] = 8,
            ["C.M.Local (local)"] = 3,
            ["C.operator +"] = 1,
        }, sizes);
        Assert.Equal(31, SourceSizes.FileLines(code + "\n"));
    }

    [Fact]
    public void Members_TopLevelStatements_MeasuredAsOneMethod()
    {
        var size = Assert.Single(SourceSizes.Members("Program.cs", "using System;\n\nConsole.WriteLine(1);\n\nreturn 0;\n"));

        Assert.Equal(new SourceSize("Program.cs", SourceSizes.TopLevel, 3), size);
    }

    private static IEnumerable<(string Relative, string Text)> Sources() => SourceFiles.InSrc();
}
