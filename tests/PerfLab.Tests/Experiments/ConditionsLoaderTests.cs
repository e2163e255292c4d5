using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments;

/// <summary>The conditions' keys: database: { rtt }, cores, sweep and default, read and checked.</summary>
public sealed class ConditionsLoaderTests
{
    private const string Path = "experiments/demo.yaml";

    private const string Valid = """
        name: demo
        title: Demo
        seed: "000"
        reproduces: a table
        baseline: a
        default: false
        database: { rtt: 1ms }
        sweep:
          condition: users
          values: [10, 20, 40]
        variants:
          - name: a
            settings: { DataAccess: sync }
          - name: b
            database: { rtt: 2.5ms }
            cores: 1
        load:
          scenarios:
            - name: order
              url: /customer/orders/{id}
              feed: { placeholder: id, from: /customer/orders/ids }
              model: closed
              users: 50
            - name: burst
              url: /x
              model: burst
              size: 5
        profiles:
          article: { warmup: 10s, duration: 3m, repeat: 3, batches: 2 }
          quick: { warmup: 2s, duration: 6s, repeat: 3, batches: 2 }
          smoke: { warmup: 500ms, duration: 2s, repeat: 1, batches: 1 }
        claims:
          - text: b is faster
            variant: b
            metric: rps
            seedFigure: 1 -> 2
            seedChange: 100
        """;

    [Fact]
    public void Parse_ConditionsAndSweep_ReadsEveryKey()
    {
        var e = ExperimentLoader.Parse(Valid, Path);

        Assert.False(e.RunsByDefault);
        Assert.Equal(new Conditions { DatabaseRttMs = 1 }, e.Conditions);
        Assert.Equal(Conditions.None, e.Variants[0].Conditions);
        Assert.Equal(new Conditions { DatabaseRttMs = 2.5, Cores = 1 }, e.Variants[1].Conditions);
        Assert.Equal(ConditionKind.Users, e.Sweep!.Condition);
        Assert.Equal([10, 20, 40], e.Sweep.Values);
        // The variant's own conditions win over the experiment's.
        Assert.Equal(new Conditions { DatabaseRttMs = 2.5, Cores = 1 }, e.Conditions.Under(e.Variants[1].Conditions));
    }

    [Fact]
    public void Parse_NoNewKeys_RunsByDefaultWithoutConditions()
    {
        var e = ExperimentLoader.Parse(Valid
            .Replace("default: false\n", "", StringComparison.Ordinal)
            .Replace("database: { rtt: 1ms }\n", "", StringComparison.Ordinal)
            .Replace("sweep:\n  condition: users\n  values: [10, 20, 40]\n", "", StringComparison.Ordinal), Path);

        Assert.True(e.RunsByDefault);
        Assert.True(e.Conditions.IsEmpty);
        Assert.Null(e.Sweep);
        Assert.Equal([e], SweepDefinition.Points(e));
    }

    [Fact]
    public void Points_UsersSweep_OneExperimentPerValueWithTheUsersOfClosedScenariosReplaced()
    {
        var points = SweepDefinition.Points(ExperimentLoader.Parse(Valid, Path));

        Assert.Equal(["demo@10-users", "demo@20-users", "demo@40-users"], points.Select(p => p.Name));
        Assert.Equal([10, 20, 40], points.Select(p => Assert.IsType<ClosedModel>(p.Scenarios[0].Model).Users));
        Assert.All(points, p => Assert.Equal(5, Assert.IsType<BurstModel>(p.Scenarios[1].Model).BatchSize));
        Assert.All(points, p => Assert.Equal(1, p.Conditions.DatabaseRttMs));
        Assert.Equal([10, 20, 40], points.Select(p => p.Conditions.Users));
        Assert.Equal(new SweepPoint("demo", ConditionKind.Users, 20), points[1].Point);
        Assert.All(points, p => Assert.Null(p.Sweep));
        Assert.Equal("b is faster (20 users per closed scenario)", points[1].Claims[0].Text);
    }

    [Fact]
    public void Points_MinThreadsSweep_SetsTheSutSettingOnEveryVariant()
    {
        var text = Valid.Replace("condition: users\n  values: [10, 20, 40]", "condition: min-threads\n  values: [4, 70]", StringComparison.Ordinal);

        var points = SweepDefinition.Points(ExperimentLoader.Parse(text, Path));

        Assert.Equal(["demo@min-threads-4", "demo@min-threads-70"], points.Select(p => p.Name));
        Assert.All(points[1].Variants, v => Assert.Equal("70", v.Settings["ThreadPool:MinWorkerThreads"]));
        Assert.Equal("sync", points[1].Variants[0].Settings["DataAccess"]);
    }

    [Theory]
    [InlineData("database: { rtt: 1ms }", "database: { rtt: fast }", "demo.yaml:7:18: expected 'rtt' to be a round-trip time from 0ms to 1s, like 10ms.")]
    [InlineData("database: { rtt: 1ms }", "database: { latency: 1ms }", "demo.yaml:7:13: unknown key 'latency' in database; expected one of rtt.")]
    [InlineData("    cores: 1", "    cores: 0", "demo.yaml:16:12: expected 'cores' to be a whole number from 1 to 1024.")]
    [InlineData("default: false", "default: maybe", "demo.yaml:6:10: expected 'default' to be true or false.")]
    [InlineData("condition: users", "condition: latency", "demo.yaml:9:14: sweep condition 'latency' is not one of database-rtt, users, min-threads, cores.")]
    [InlineData("values: [10, 20, 40]", "values: [10, 40, 20]", "demo.yaml:10:20: sweep values must ascend, each once: 20 users follows 40 users.")]
    [InlineData("values: [10, 20, 40]", "values: [10]", "demo.yaml:10:11: a sweep needs at least two values (e.g. values: [0ms, 1ms, 5ms]).")]
    [InlineData("values: [10, 20, 40]", "values: [10, many]", "demo.yaml:10:16: sweep value 'many' of users is not a whole number from 1 to 10000.")]
    public void Parse_BadConditionValue_NamesTheFileTheKeyAndWhatWasExpected(string from, string to, string message)
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(Valid.Replace(from, to, StringComparison.Ordinal), Path));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Equal($"experiments/{message}", ex.Message);
    }

    [Theory]
    [InlineData("values: [1, 2]", "sweep value '1' of database-rtt is not a round-trip time from 0ms to 1s with its unit, like 0.5ms.")]
    [InlineData("values: [0ms, 2s]", "sweep value '2s' of database-rtt is not a round-trip time from 0ms to 1s with its unit, like 0.5ms.")]
    public void Parse_DatabaseRttSweepWithoutUnitOrTooLong_IsRejected(string values, string message)
    {
        var text = Valid.Replace("database: { rtt: 1ms }\n", "", StringComparison.Ordinal)
            .Replace("    database: { rtt: 2.5ms }\n", "", StringComparison.Ordinal)
            .Replace("condition: users\n  values: [10, 20, 40]", "condition: database-rtt\n  " + values, StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, Path));

        Assert.EndsWith(message, ex.Message);
        Assert.StartsWith("experiments/demo.yaml:", ex.Message);
    }

    [Theory]
    [InlineData("database-rtt", "values: [0ms, 1ms]", "the sweep varies database-rtt, which the experiment also fixes; remove one of the two.")]
    [InlineData("cores", "values: [1, 2]", "the sweep varies cores, which variant 'b' also sets; remove it from the variant.")]
    [InlineData("min-threads", "values: [1, 2]", "the sweep varies min-threads, which variant 'a' also sets; remove it from the variant.")]
    public void Parse_SweptConditionAlsoFixed_IsRejected(string condition, string values, string message)
    {
        var text = Valid.Replace("condition: users\n  values: [10, 20, 40]", $"condition: {condition}\n  {values}", StringComparison.Ordinal)
            .Replace("settings: { DataAccess: sync }", "settings: { DataAccess: sync, \"ThreadPool:MinWorkerThreads\": \"8\" }", StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, Path));

        Assert.Equal($"experiments/demo.yaml:9:3: {message}", ex.Message);
    }

    [Fact]
    public void Parse_UsersSweepWithoutClosedScenario_IsRejected()
    {
        var text = Valid.Replace("model: closed\n      users: 50", "model: open\n      rate: 50", StringComparison.Ordinal);

        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(text, Path));

        Assert.Equal("experiments/demo.yaml:9:3: a users sweep sets the users of closed scenarios, and this experiment has none.", ex.Message);
    }

    [Fact]
    public void LoadFolder_ShippedSweeps_AreLeftOutOfTheDefaultRunAndParse()
    {
        var all = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder);

        var rtt = all.Single(e => e.Name == "sync-async-rtt");
        Assert.False(rtt.RunsByDefault);
        Assert.Equal([0, 0.5, 1, 2, 5], rtt.Sweep!.Values);
        var cores = all.Single(e => e.Name == "gc-cores");
        Assert.False(cores.RunsByDefault);
        Assert.Equal([1.0, 2.0], cores.Sweep!.Values);
        // Besides the sweeps, the db-wait check of SetMinThreads (three more minutes of blocking) and framework (tiered
        // compilation) and its ADO.NET twin wait to be named.
        Assert.Equal(
            ["db-wait-min-threads", "framework-adonet", "framework", "gc-cores", "sync-async-capacity", "sync-async-rtt", "sync-async-scaling"],
            all.Where(e => !e.RunsByDefault).Select(e => e.Name));
    }
}
