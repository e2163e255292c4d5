using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running.Blocks;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments;

/// <summary>
/// <c>method:</c> read and checked: in-process only where the variants differ in per-request switches alone; the
/// header a variant's requests carry.
/// </summary>
public sealed class BlockMethodTests
{
    private const string Path = "experiments/demo.yaml";

    private static string File(string method, string secondVariant) => $"""
        name: demo
        title: Demo
        seed: "000"
        reproduces: a table
        baseline: a
        {method}
        variants:
          - name: a
            settings: {"{"} Serializer: newtonsoft, Console: terminal {"}"}
          - name: b
            {secondVariant}
        load:
          scenarios:
            - name: order
              url: /customer/orders/1
              model: closed
              users: 5
        profiles:
          quick: {"{"} warmup: 2s, duration: 6s, slots: 3, repeat: 3 {"}"}
        """;

    [Fact]
    public void Parse_NoMethod_FreshProcesses()
    {
        var e = ExperimentLoader.Parse(File("", "settings: { Serializer: system-text-json, Console: terminal }"), Path);

        Assert.Same(BlockMethod.FreshProcesses, e.Method);
    }

    [Fact]
    public void Parse_InProcess_VariantsDifferingInPerRequestSwitchesOnly_Accepted()
    {
        var e = ExperimentLoader.Parse(File("method: in-process",
            "settings: { \"Sut:Serializer\": system-text-json, Console: terminal, ExtraWorkMicroseconds: 100 }"), Path);

        Assert.Same(BlockMethod.InProcess, e.Method);
        Assert.Equal("Serializer=system-text-json; ExtraWorkMicroseconds=100", InProcessBlock.HeaderOf(e.Variants[1]));
    }

    public static TheoryData<string, string> ProcessWide => new()
    {
        { "settings: { Serializer: newtonsoft, Console: terminal }\n    env: { DOTNET_gcServer: \"1\" }", "environment DOTNET_gcServer (unset vs 1)" },
        { "settings: { Serializer: newtonsoft, Console: terminal }\n    framework: net8.0", "framework net10.0 vs net8.0" },
        { "settings: { Serializer: newtonsoft, Console: terminal, \"ThreadPool:MinWorkerThreads\": \"64\" }",
            "setting ThreadPool:MinWorkerThreads (unset vs 64)" },
        { "settings: { Serializer: newtonsoft }", "setting Console (terminal vs unset)" },
    };

    [Theory]
    [MemberData(nameof(ProcessWide))]
    public void Parse_InProcess_AProcessWideDifference_RefusedNamingIt(string variant, string named)
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(File("method: in-process", variant), Path));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("method: in-process alternates the variants inside one process", ex.Message);
        Assert.Contains($"'b' differs from 'a' in a process-wide one: {named}", ex.Message);
    }

    [Fact]
    public void Parse_UnknownMethod_RefusedNamingTheChoices()
    {
        var ex = Assert.Throws<PerfLabException>(() => ExperimentLoader.Parse(File("method: in-place", "settings: { Serializer: newtonsoft }"), Path));

        Assert.Contains("method: 'in-place' is not a block method; use fresh-process or in-process.", ex.Message);
    }

    [Fact]
    public void ShippedGc_InProcess_RefusedForItsGcMode()
    {
        var gc = ExperimentLoader.LoadFile(System.IO.Path.Combine(ExperimentLoader.DefaultFolder, "gc.yaml"));

        Assert.Contains("in a process-wide one: environment DOTNET_gcServer", BlockMethodReader.RefusalOfOneProcess(gc));
    }
}
