using PerfLab.Apps;

namespace PerfLab.Tests.Apps;

public sealed class MainModuleTests
{
    [Theory]
    [InlineData("dotnet|/srv/app/TinyShop.dll|--urls|http://127.0.0.1:5000", "TinyShop")]
    [InlineData("/usr/bin/dotnet|exec|--runtimeconfig|/a/b.runtimeconfig.json|/a/PerfLab.Sut.dll", "PerfLab.Sut")]
    [InlineData("/srv/app/TinyShop|--urls|http://127.0.0.1:5000", "TinyShop")]
    [InlineData("dotnet|run", null)]
    [InlineData("", null)]
    public void Of_CommandLine_NamesTheAppsMainAssembly(string commandLine, string? module)
    {
        Assert.Equal(module, MainModule.Of(commandLine.Split('|', StringSplitOptions.RemoveEmptyEntries)));
    }

    [Fact]
    public void Of_ThisProcess_ReadsItsOwnCommandLine()
    {
        // The test host runs as "dotnet exec ... testhost.dll ...": the runtime names the same entry assembly.
        var entry = Path.GetFileNameWithoutExtension(Environment.GetCommandLineArgs()[0]);

        Assert.Equal(entry, MainModule.Of(Environment.ProcessId));
    }
}
