using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments;

/// <summary>The <c>capacity:</c> block of experiment files, read and checked, with each bad input placed at its line.</summary>
public sealed class CapacityLoaderTests
{
    private const string Path = "experiments/cap.yaml";

    // Line numbers matter: the bad-input cases below name the line their error must point at.
    private const string Valid = """
        name: cap
        title: Capacity
        seed: "000"
        reproduces: a table
        baseline: two
        capacity:
          slo: p95<=80ms
          errors: <2%
          from: 50
          max: 800
          precision: 10%
        variants:
          - name: two
            vars: { slots: "2" }
          - name: four
            vars: { slots: "4" }
        load:
          scenarios:
            - name: slots
              url: /diagnostics/capacity?slots=${slots}&ms=20
        profiles:
          quick: { warmup: 500ms, duration: 1500ms, repeat: 2 }
        """;

    [Fact]
    public void Parse_CapacityBlock_ReadsSloRangeAndDecidesOnCapacity()
    {
        var e = ExperimentLoader.Parse(Valid, Path);

        var capacity = Assert.IsType<CapacityDefinition>(e.Capacity);
        Assert.Equal("p95<=80ms, errors<2%", capacity.Slo.Describe());
        Assert.Equal(80, capacity.Slo.LimitMs);
        Assert.Equal(new CapacityRange(50, 800, 0.10), capacity.Range);
        Assert.Equal(Metrics.CapacityRps, e.Decide);
        Assert.Same(Metrics.CapacityRps, e.PrimaryMetric);
        // The scenario names no model: the search's open model, starting at the block's from.
        var open = Assert.IsType<OpenModel>(Assert.Single(e.Scenarios).Model);
        Assert.Equal(50, open.Rate);
        // 50 -> 800 is 5 rising steps at most; a doubling narrows to 10 % in 4 bisections.
        Assert.Equal(5, capacity.Range.MostRisingSteps);
        Assert.Equal(4, capacity.Range.Bisections);
    }

    [Fact]
    public void Parse_BlockWithoutErrorsOrPrecision_TakesUnderOnePercentAndFivePercent()
    {
        var text = Valid.Replace("  errors: <2%\n", "", StringComparison.Ordinal)
            .Replace("  precision: 10%\n", "", StringComparison.Ordinal);

        var capacity = ExperimentLoader.Parse(text, Path).Capacity!;

        Assert.Equal("p95<=80ms, errors<1%", capacity.Slo.Describe());
        Assert.Equal(0.05, capacity.Range.Precision);
    }

    /// <summary>The same file without its capacity block (<paramref name="instead"/> in its place), its scenario closed.</summary>
    private static string WithoutCapacity(string instead = "") =>
        (Valid[..Valid.IndexOf("capacity:", StringComparison.Ordinal)] + instead
            + Valid[Valid.IndexOf("variants:", StringComparison.Ordinal)..])
            .Replace("ms=20\n", "ms=20\n      model: closed\n      users: 2\n", StringComparison.Ordinal);

    [Fact]
    public void Parse_NoCapacityBlock_NoCapacityAndThroughputIsPrimary()
    {
        var e = ExperimentLoader.Parse(WithoutCapacity(), Path);

        Assert.Null(e.Capacity);
        Assert.Equal(Metrics.Rps, e.Decide);
        Assert.Same(Metrics.Rps, e.PrimaryMetric);
    }

    [Theory]
    [InlineData("slo: p95<=80ms", "slo: p95>80ms", 7, "capacity slo 'p95>80ms': the SLO is an upper bound on a latency")]
    [InlineData("slo: p95<=80ms", "slo: rps<80", 7, "capacity slo 'rps<80': the SLO is an upper bound on a latency")]
    [InlineData("slo: p95<=80ms", "slo: p95<0ms", 7, "the latency bound must be positive")]
    [InlineData("errors: <2%", "errors: <2", 8, "capacity errors '<2': an upper bound on the error rate in percent")]
    [InlineData("  slo: p95<=80ms\n", "", 7, "missing required key 'slo'")]
    [InlineData("max: 800", "max: 40", 10, "capacity max (40) is below from (50): give a range that rises")]
    [InlineData("from: 50", "from: 0", 9, "capacity from is a rate in requests per second: a number above 0")]
    [InlineData("from: 50", "from: fast", 9, "expected 'from' to be a number")]
    [InlineData("precision: 10%", "precision: 60%", 11, "at most 50 %")]
    [InlineData("precision: 10%", "rate: 10", 11, "unknown key 'rate' in capacity; expected one of slo, errors, from, max, precision")]
    [InlineData("ms=20\n", "ms=20\n      model: open\n      rate: 50\n", 21,
        "'model': a capacity experiment's scenario takes its rates from the capacity block")]
    [InlineData("ms=20\n", "ms=20\n      rate: 50\n", 21, "'rate': a capacity experiment's scenario takes its rates")]
    [InlineData("ms=20\n", "ms=20\n    - name: again\n      url: /x\n", 7, "expected exactly one scenario, found 2")]
    [InlineData("baseline: two\n", "baseline: two\ndecide: rps\n", 6, "decide: a capacity experiment is decided on its capacity")]
    [InlineData("repeat: 2 }", "repeat: 2, slots: 3 }", 7,
        "profile 'quick' has slots: a capacity search runs in one app process per variant")]
    [InlineData("baseline: two\n", "baseline: two\nsweep: { condition: cores, values: [1, 2] }\n", 6,
        "a capacity experiment cannot also sweep a condition")]
    public void Parse_BadCapacityInput_UsageErrorAtItsLine(string find, string replace, int line, string message)
    {
        var text = Valid.Replace(find, replace, StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, Path));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.StartsWith($"{Path}:{line}:", ex.Message, StringComparison.Ordinal);
        Assert.Contains(message, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_DecideCapacityWithoutBlock_SaysTheBlockIsNeeded()
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(WithoutCapacity("decide: capacity\n"), Path));

        Assert.StartsWith($"{Path}:6:", ex.Message, StringComparison.Ordinal);
        Assert.Contains("decide: capacity needs a capacity: block", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void LoadFile_ShippedCapacityExperiments_ParseWithTheirBlocks()
    {
        var builtIn = ExperimentLoader.LoadFile(System.IO.Path.Combine(ExperimentLoader.DefaultFolder, "sync-async-capacity.yaml"));
        var sample = ExperimentLoader.LoadFile(
            System.IO.Path.Combine(PerfLabPaths.RepoRoot, "samples", "TinyShop", "experiments", "capacity.yaml"));

        Assert.False(builtIn.RunsByDefault);
        Assert.Equal(["sync", "async"], builtIn.Variants.Select(v => v.Name));
        Assert.Equal("p99<100ms, errors<1%", builtIn.Capacity!.Slo.Describe());
        Assert.Equal(Metrics.CapacityRps, Assert.Single(builtIn.Claims).Metric);
        Assert.NotNull(sample.App);
        Assert.Equal("p99<50ms, errors<1%", sample.Capacity!.Slo.Describe());
    }
}
