using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>What an app's build needs on its host, read from its runtimeconfig.json as dotnet writes it.</summary>
public sealed class FrameworkNeedTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("perflab-needs-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public void Of_FrameworkDependentWebApp9_NeedsBoth9s_AHostWith10AloneLacksAspNetCore9()
    {
        var dll = Write("""
            { "runtimeOptions": { "tfm": "net9.0", "frameworks": [
                { "name": "Microsoft.NETCore.App", "version": "9.0.0" }, { "name": "Microsoft.AspNetCore.App", "version": "9.0.0" } ] } }
            """);
        IReadOnlyList<string> host = ["Microsoft.NETCore.App 9.0.4", "Microsoft.AspNetCore.App 10.0.0"];

        var needs = FrameworkNeed.Of(dll);

        Assert.Equal([new FrameworkNeed("Microsoft.NETCore.App", 9), new FrameworkNeed(FrameworkNeed.AspNetCore, 9)], needs);
        Assert.Equal("app host 'a': Shop.dll needs Microsoft.AspNetCore.App 9, which it lacks (found 10.0.0): install "
            + "aspnetcore-runtime-9.0 there (apt-get install aspnetcore-runtime-9.0, from Debian's or Microsoft's packages; or "
            + "dotnet-install.sh --runtime aspnetcore --channel 9.0).",
            FrameworkNeed.FirstMissing(needs, new HostRef("app", "a"), "Shop.dll", host));
    }

    [Fact]
    public void Of_SelfContainedApp_NeedsNothingOfTheHost()
    {
        var dll = Write("""
            { "runtimeOptions": { "tfm": "net10.0", "includedFrameworks": [
                { "name": "Microsoft.NETCore.App", "version": "10.0.0" }, { "name": "Microsoft.AspNetCore.App", "version": "10.0.0" } ] } }
            """);

        Assert.Empty(FrameworkNeed.Of(dll));
    }

    private string Write(string runtimeConfig)
    {
        File.WriteAllText(Path.Combine(_folder, "Shop.runtimeconfig.json"), runtimeConfig);
        return Path.Combine(_folder, "Shop.dll");
    }
}
