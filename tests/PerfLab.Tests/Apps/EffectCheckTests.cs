using PerfLab.Apps;

namespace PerfLab.Tests.Apps;

/// <summary>What a variant asked for set beside what a process shows: each outcome from a known process view.</summary>
public sealed class EffectCheckTests
{
    private static ProcessView View(Dictionary<string, string>? environment, int? serverGcThreads, params string[] commandLine) =>
        new(environment, environment is null ? "no diagnostics port" : null, serverGcThreads, "10.0.0", commandLine);

    private static readonly Dictionary<string, string> NoConfig = [];

    [Fact]
    public void Check_EnvironmentAsAsked_IsConfirmed()
    {
        var effect = EffectCheck.Check(new Dictionary<string, string> { ["TINYSHOP_GREETING"] = "hi" }, NoConfig, false,
            View(new() { ["TINYSHOP_GREETING"] = "hi", ["PATH"] = "/bin" }, 0));

        Assert.Equal(new[] { "TINYSHOP_GREETING=hi (process environment)" }, effect.Confirmed);
        Assert.Empty(effect.NotInEffect);
        Assert.Empty(effect.Unconfirmed);
    }

    [Fact]
    public void Check_EnvironmentOverriddenOrMissing_NamesAskedAndObservedValues()
    {
        var effect = EffectCheck.Check(new Dictionary<string, string> { ["A"] = "1", ["B"] = "2" }, NoConfig, false,
            View(new() { ["A"] = "0" }, 0));

        Assert.Equal(new[] { "A: asked 1, the process's environment has 0", "B: asked 2, absent from the process's environment" }, effect.NotInEffect);
        Assert.Empty(effect.Confirmed);
    }

    [Fact]
    public void Check_ServerGcAskedButNoServerGcThread_IsNotInEffect()
    {
        var effect = EffectCheck.Check(new Dictionary<string, string> { ["DOTNET_gcServer"] = "1" }, NoConfig, false,
            View(new() { ["DOTNET_gcServer"] = "1" }, serverGcThreads: 0));

        Assert.Contains("DOTNET_gcServer=1 (process environment)", effect.Confirmed);
        Assert.Equal(new[] { "GC mode (DOTNET_gcServer=1): asked server, observed workstation (no '.NET Server GC' thread)" }, effect.NotInEffect);
        Assert.Equal("workstation", effect.Observed["gc"]);
    }

    [Fact]
    public void Check_ServerGcAskedAndTwoServerGcThreads_IsConfirmed()
    {
        var effect = EffectCheck.Check(new Dictionary<string, string> { ["DOTNET_gcServer"] = "1" }, NoConfig, false,
            View(new() { ["DOTNET_gcServer"] = "1" }, serverGcThreads: 2));

        Assert.Contains("server GC (2 '.NET Server GC' threads)", effect.Confirmed);
        Assert.Empty(effect.NotInEffect);
    }

    [Fact]
    public void Check_EnvironmentUnreadable_LeavesItUnconfirmedWithTheReason()
    {
        var effect = EffectCheck.Check(new Dictionary<string, string> { ["A"] = "1" }, NoConfig, false, View(null, null));

        Assert.Equal(new[] { "A=1 (the process environment could not be read: no diagnostics port)" }, effect.Unconfirmed);
        Assert.Empty(effect.NotInEffect);
        Assert.Empty(effect.Confirmed);
    }

    [Fact]
    public void Check_ConfigurationOnTheCommandLine_IsUnconfirmed_AndMissingFromIt_IsNotInEffect()
    {
        var config = new Dictionary<string, string> { ["Report:Cache"] = "true", ["Report:Orders"] = "10" };
        var effect = EffectCheck.Check(new Dictionary<string, string>(), config, false,
            View(new(), 0, "dotnet", "TinyShop.dll", "--urls", "http://127.0.0.1:5000", "--Report:Cache=true"));

        Assert.Equal(new[] { "configuration Report:Orders=10: --Report:Orders=10 is not on the app process's command line" }, effect.NotInEffect);
        Assert.Equal(new[] { "configuration Report:Cache=true (passed as --Report:Cache=true; what the app does with it is not observable from outside)" },
            effect.Unconfirmed);
    }
}
