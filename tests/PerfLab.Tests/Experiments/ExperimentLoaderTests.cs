using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;

namespace PerfLab.Tests.Experiments;

public sealed class ExperimentLoaderTests
{
    private const string Valid = """
        name: demo
        title: Demo
        seed: "000"
        reproduces: a table
        baseline: a
        variants:
          - name: a
            settings: { Serializer: newtonsoft }
          - name: b
            env: { DOTNET_gcServer: "1" }
            vars: { endpoint: weatherforecast-async }
        load:
          scenarios:
            - name: order
              url: /customer/orders/{id}
              feed: { placeholder: id, from: /customer/orders/ids, order: random }
              model: closed
              users: 10
        profiles:
          article: { warmup: 10s, duration: 3m, repeat: 3 }
          quick: { warmup: 2s, duration: 6s, repeat: 3 }
          smoke: { warmup: 500ms, duration: 2s, repeat: 1 }
        claims:
          - text: b is faster
            variant: b
            metric: rps
            seedFigure: 1 -> 2
            seedChange: 100
        """;

    [Fact]
    public void Parse_NoProfiles_TakesTheDefaultArticleQuickAndSmoke()
    {
        var text = Valid[..Valid.IndexOf("profiles:", StringComparison.Ordinal)];

        var e = ExperimentLoader.Parse(text, "experiments/demo.yaml");

        Assert.Equal((TimeSpan.FromSeconds(30), 5), (e.Profiles[ProfileName.Article].Duration, e.Profiles[ProfileName.Article].Repeat));
        Assert.Equal((TimeSpan.FromSeconds(6), 3, 5.0, 8), (e.Profiles[ProfileName.Quick].Duration, e.Profiles[ProfileName.Quick].Repeat, e.Profiles[ProfileName.Quick].PrecisionPercent, e.Profiles[ProfileName.Quick].MaxRepeat));
        Assert.True(e.Profiles[ProfileName.Quick].WarmupUntilSteady);
        Assert.Equal((TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2), 1), (e.Profiles[ProfileName.Smoke].Warmup, e.Profiles[ProfileName.Smoke].Duration, e.Profiles[ProfileName.Smoke].Repeat));
    }

    [Fact]
    public void Parse_OneProfileGiven_KeepsItAndDefaultsTheOthers()
    {
        var text = Valid.Replace("  article: { warmup: 10s, duration: 3m, repeat: 3 }\n", "", StringComparison.Ordinal)
            .Replace("  smoke: { warmup: 500ms, duration: 2s, repeat: 1 }\n", "", StringComparison.Ordinal);

        var e = ExperimentLoader.Parse(text, "experiments/demo.yaml");

        Assert.Equal(TimeSpan.FromSeconds(2), e.Profiles[ProfileName.Quick].Warmup);
        Assert.Null(e.Profiles[ProfileName.Quick].PrecisionPercent);
        Assert.Equal(TimeSpan.FromSeconds(30), e.Profiles[ProfileName.Article].Duration);
        Assert.Equal(TimeSpan.FromSeconds(2), e.Profiles[ProfileName.Smoke].Duration);
    }

    [Fact]
    public void Parse_ValidFile_ReadsEveryPart()
    {
        var e = ExperimentLoader.Parse(Valid, "experiments/demo.yaml");
        Assert.Equal(["a", "b"], e.Variants.Select(v => v.Name));
        Assert.Equal("newtonsoft", e.Variants[0].Settings["Serializer"]);
        Assert.Equal("1", e.Variants[1].Env["DOTNET_gcServer"]);
        Assert.Equal(TimeSpan.FromMinutes(3), e.Profiles[ProfileName.Article].Duration);
        Assert.Equal(TimeSpan.FromMilliseconds(500), e.Profiles[ProfileName.Smoke].Warmup);
        Assert.Equal(new FeedDefinition("id", "/customer/orders/ids", true), e.Scenarios[0].Feed);
        Assert.Equal("a", e.Claims[0].Against);
    }

    [Theory]
    [InlineData("users: 10", "users: many", "demo.yaml:18:14: expected 'users' to be a whole number from 1 to 10000.")]
    [InlineData("model: closed", "model: closd", "demo.yaml:17:14: model 'closd' is not one of closed, open, burst, ramp, upload.")]
    [InlineData("baseline: a", "baseline: z", "demo.yaml:5:11: baseline 'z' is not one of the variants (a, b).")]
    [InlineData("duration: 3m", "duration: forever", "demo.yaml:20:37: expected 'duration' to be a duration like 500ms, 10s or 3m, above zero.")]
    [InlineData("title: Demo", "titel: Demo",
        "demo.yaml:2:1: unknown key 'titel' in the experiment; expected one of name, title, seed, reproduces, baseline, variants, load, "
        + "profiles, claims, thresholds, margin, app, decide, method, capacity, database, cores, sweep, default.")]
    [InlineData("    metric: rps", "    metric: speed",
        "demo.yaml:26:13: metric 'speed' is not one of rps, mean-ms, p90-ms, p99-ms, batch-mean-ms, capacity-rps, cpu-per-request, "
            + "cpu-per-request-full-speed.")]
    [InlineData("name: demo", "name: other", "demo.yaml:1:7: name 'other' must match the file name 'demo'.")]
    [InlineData("quick: { warmup: 2s,", "quick: { precision: 150%, warmup: 2s,", "demo.yaml:21:23: expected 'precision' to be a percentage above 0 and below 100, like 5%.")]
    [InlineData("quick: { warmup: 2s,", "quick: { max-repeat: 9, warmup: 2s,", "demo.yaml:21:24: max-repeat caps the blocks added for a precision: give precision too (e.g. precision: 5%).")]
    [InlineData("quick: { warmup: 2s,", "quick: { steady: maybe, warmup: 2s,", "demo.yaml:21:20: expected 'steady' to be true or false.")]
    [InlineData("quick: { warmup: 2s,", "quick: { slots: 1, warmup: 2s,", "demo.yaml:21:19: expected 'slots' to be a whole number from 2 to 100.")]
    [InlineData("quick: { warmup: 2s,", "quick: { window: 700ms, warmup: 2s,", "demo.yaml:21:20: " + WindowRefused)]
    [InlineData("quick: { warmup: 2s,", "quick: { window: 2s, warmup: 2s,", "demo.yaml:21:20: " + WindowRefused)]
    [InlineData("quick: { warmup: 2s,", "quick: { slots: 3, window: 250ms, warmup: 2s,", "demo.yaml:21:30: " + WindowRefused)]
    public void Parse_MalformedFile_NamesFileLineAndWhatWasExpected(string find, string replace, string expected)
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(Valid.Replace(find, replace, StringComparison.Ordinal), "experiments/demo.yaml"));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Equal("experiments/" + expected, ex.Message);
    }

    [Fact]
    public void Parse_AdaptiveProfile_ReadsPrecisionBlockCapAndSteadyWarmup()
    {
        var text = Valid.Replace("quick: { warmup: 2s, duration: 6s, repeat: 3 }",
            "quick: { warmup: 20s, steady: true, duration: 6s, repeat: 3, precision: 5%, max-repeat: 12 }", StringComparison.Ordinal);

        var quick = ExperimentLoader.Parse(text, "experiments/demo.yaml").Profiles[ProfileName.Quick];

        Assert.Equal((5.0, 12, true, TimeSpan.FromSeconds(20)), (quick.PrecisionPercent, quick.MaxRepeat, quick.WarmupUntilSteady, quick.Warmup));
    }

    [Fact]
    public void Parse_Slots_SplitsTheWindowAndSaysSoInTheLoadDescription()
    {
        var text = Valid.Replace("quick: { warmup: 2s, duration: 6s, repeat: 3 }",
            "quick: { warmup: 2s, duration: 9s, slots: 3, repeat: 3 }", StringComparison.Ordinal);
        var experiment = ExperimentLoader.Parse(text, "experiments/demo.yaml");
        var quick = experiment.Profiles[ProfileName.Quick];

        Assert.Equal(3, quick.Slots);
        Assert.Null(experiment.Profiles[ProfileName.Smoke].Slots);
        Assert.EndsWith("the variants of a block run at once and take turns, 3 slots of 3s each",
            PerfLab.Experiments.Analysis.ExperimentAnalyzer.DescribeLoad(experiment, quick), StringComparison.Ordinal);
    }

    private const string WindowRefused = "window is a short-alternation window from 100ms to 1s that divides the duration at least "
        + "twice (e.g. duration: 6s, window: 250ms), given instead of slots.";

    [Fact]
    public void Parse_Window_SetsTheSlotsToTheWindowsOfTheDuration()
    {
        var text = Valid.Replace("quick: { warmup: 2s, duration: 6s, repeat: 3 }",
            "quick: { warmup: 2s, duration: 6s, window: 250ms, repeat: 3 }", StringComparison.Ordinal);
        var experiment = ExperimentLoader.Parse(text, "experiments/demo.yaml");
        var quick = experiment.Profiles[ProfileName.Quick];

        Assert.Equal((24, TimeSpan.FromMilliseconds(250)), (quick.Slots, quick.Window));
        Assert.EndsWith("take turns, 24 windows of 250ms each on held load, the others stopped",
            PerfLab.Experiments.Analysis.ExperimentAnalyzer.DescribeLoad(experiment, quick), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("model: burst\n      size: 10")]
    [InlineData("model: ramp\n      from: 2\n      step: 2")]
    public void Parse_SlotsOnABurstOrARamp_AreRefusedNamingTheKey(string model)
    {
        var text = Valid.Replace("model: closed", model, StringComparison.Ordinal)
            .Replace("quick: { warmup: 2s, duration: 6s, repeat: 3 }", "quick: { warmup: 2s, duration: 6s, repeat: 3, slots: 3 }", StringComparison.Ordinal)
            .Replace("article: { warmup: 10s, duration: 3m, repeat: 3 }", "article: { warmup: 10s, duration: 3m, repeat: 3, batches: 2 }", StringComparison.Ordinal)
            .Replace("smoke: { warmup: 500ms, duration: 2s, repeat: 1 }", "smoke: { warmup: 500ms, duration: 2s, repeat: 1, batches: 2 }", StringComparison.Ordinal);
        if (model.StartsWith("model: ramp", StringComparison.Ordinal))
        {
            text = text.Replace(", batches: 2", "", StringComparison.Ordinal);
        }
        else
        {
            text = text.Replace("slots: 3 }", "slots: 3, batches: 2 }", StringComparison.Ordinal);
        }

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, "experiments/demo.yaml"));
        Assert.Contains("slots apply to closed and open scenarios only", ex.Message, StringComparison.Ordinal);
        Assert.Matches(@"^experiments/demo\.yaml:2[1-3]:\d+: slots", ex.Message);
    }

    [Fact]
    public void Parse_ProfileEnv_GoesToEveryVariantUnderTheVariantsOwn()
    {
        var text = Valid.Replace("quick: { warmup: 2s, duration: 6s, repeat: 3 }",
            "quick: { warmup: 2s, duration: 6s, repeat: 3, env: { DOTNET_TieredCompilation: \"0\", DOTNET_gcServer: \"0\" } }", StringComparison.Ordinal);
        var experiment = ExperimentLoader.Parse(text, "experiments/demo.yaml");
        var quick = experiment.Profiles[ProfileName.Quick];
        var variant = new VariantDefinition { Name = "server", Env = new Dictionary<string, string> { ["DOTNET_gcServer"] = "1" } };

        var applied = quick.Apply(variant);

        Assert.Equal("0", applied.Env["DOTNET_TieredCompilation"]);
        Assert.Equal("1", applied.Env["DOTNET_gcServer"]); // the variant's own switch wins
        Assert.Same(variant, experiment.Profiles[ProfileName.Smoke].Apply(variant));
        Assert.EndsWith("every variant's SUT runs with DOTNET_TieredCompilation=0, DOTNET_gcServer=0",
            PerfLab.Experiments.Analysis.ExperimentAnalyzer.DescribeLoad(experiment, quick), StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_NotYaml_SaysSoWithThePosition()
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse("name: [unclosed", "experiments/demo.yaml"));
        Assert.Matches(@"^experiments/demo\.yaml:\d+:\d+: not valid YAML", ex.Message);
    }

    [Fact]
    public void Parse_UrlVariableMissingInAVariant_NamesTheVariable()
    {
        var text = Valid.Replace("url: /customer/orders/{id}", "url: /${endpoint}/{id}", StringComparison.Ordinal);
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, "experiments/demo.yaml"));
        Assert.Contains("variant 'a' gives no value for ${endpoint}", ex.Message);
    }

    [Fact]
    public void LoadFolder_BuiltInExperiments_AllParseAndCiteASeed()
    {
        var all = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder);
        Assert.Equal(
            [
                "db-wait-min-threads", "db-wait", "framework-adonet", "framework", "gc-cores", "gc", "http2-window", "logging", "platform",
                "serializer", "sleep-vs-delay", "sync-async-capacity", "sync-async-rtt", "sync-async-scaling", "sync-async",
                "sync-over-async",
            ],
            all.Select(e => e.Name));
        Assert.All(all, e => Assert.Matches("^00[0-4]$", e.Seed));
        Assert.Equal(new[] { "000", "001", "002", "003", "004" }, all.Select(e => e.Seed).Distinct().Order());
        Assert.All(all, e => Assert.NotEmpty(e.Claims));
    }
}

public sealed class UploadExperimentLoaderTests
{
    /// <summary>An upload experiment's file (UploadRunTests runs it with smaller uploads).</summary>
    internal const string Upload = """
        name: up
        title: Up
        seed: "002"
        reproduces: a claim
        baseline: a
        variants:
          - name: a
            settings: { "Kestrel:EndpointDefaults:Protocols": Http2 }
          - name: b
            settings: { "Kestrel:EndpointDefaults:Protocols": Http2 }
        load:
          scenarios:
            - name: upload
              url: /upload
              model: upload
              size: 108MB
              rtt: 10ms
        profiles:
          article: { warmup: 0s, duration: 5m, repeat: 3, batches: 3 }
          quick: { warmup: 0s, duration: 2m, repeat: 3, batches: 2, size: 16MB }
          smoke: { warmup: 0s, duration: 1m, repeat: 1, batches: 1, size: 4MB }
        """;

    [Fact]
    public void Parse_UploadScenario_ReadsSizeRttAndProfileSizes()
    {
        var e = ExperimentLoader.Parse(Upload, "experiments/up.yaml");
        Assert.Equal(new UploadModel(108L << 20, TimeSpan.FromMilliseconds(10)), e.Scenarios[0].Model);
        Assert.Equal(new UploadModel(16L << 20, TimeSpan.FromMilliseconds(10), Uploads: 2), e.Scenarios[0].Model.ForProfile(e.Profiles[ProfileName.Quick].Shape));
        Assert.Equal(16L << 20, e.Profiles[ProfileName.Quick].UploadBytes);
        Assert.Null(e.Profiles[ProfileName.Article].UploadBytes);
    }

    [Fact]
    public void Parse_UploadWithoutAProfile_AsksForItsBatches()
    {
        var text = Upload.Replace("  smoke: { warmup: 0s, duration: 1m, repeat: 1, batches: 1, size: 4MB }", "", StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, "experiments/up.yaml"));

        Assert.Equal("experiments/up.yaml:19:3: expected a 'smoke' profile: burst and upload scenarios need each profile's batches (all of article, quick, smoke).", ex.Message);
    }

    [Fact]
    public void Parse_UploadBesideAnotherScenario_RunsAloneThroughItsProxy()
    {
        var text = Upload.Replace("profiles:\n", "    - name: list\n      url: /orders\n      model: closed\n      users: 2\nprofiles:\n",
            StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, "experiments/up.yaml"));

        Assert.Equal("experiments/up.yaml:12:3: scenario 'upload' goes through a latency proxy of its own (rtt:) and runs alone: "
            + "expected exactly one scenario.", ex.Message);
    }

    [Fact]
    public void Parse_UploadWithAMethod_MakesItsOwnRequest()
    {
        var text = Upload.Replace("      model: upload\n", "      model: upload\n      method: PUT\n", StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, "experiments/up.yaml"));

        Assert.Contains("the upload model makes its own request: method, headers, body and expect apply to the other models.",
            ex.Message);
    }

    [Theory]
    [InlineData("size: 108MB", "size: 2GB", "expected 'size' to be a size from 1KB to 1GB")]
    [InlineData("size: 108MB", "size: lots", "expected 'size' to be a size from 1KB to 1GB")]
    [InlineData("rtt: 10ms", "rtt: 5s", "expected 'rtt' to be a round-trip time from 0ms to 1s")]
    [InlineData("rtt: 10ms", "rtt: -1ms", "expected 'rtt' to be a round-trip time")]
    public void Parse_UploadOutOfRange_FailsBeforeAnythingStarts(string find, string replace, string expected)
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(Upload.Replace(find, replace, StringComparison.Ordinal), "experiments/up.yaml"));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Matches(@"^experiments/up\.yaml:1[67]:\d+: ", ex.Message); // the size or rtt line
        Assert.Contains(expected, ex.Message);
    }
}
