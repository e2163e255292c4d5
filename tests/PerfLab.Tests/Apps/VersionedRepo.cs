using System.Diagnostics;

namespace PerfLab.Tests.Apps;

/// <summary>A git repository holding a one-endpoint web app committed in versions: what the git-ref tests build and compare.</summary>
internal static class VersionedRepo
{
    /// <summary>Commits the app in <paramref name="project"/> (inside <paramref name="repo"/>, created on first use) with <paramref name="body"/> as the body of "/"; returns the commit.</summary>
    public static async Task<string> CommitAsync(string repo, string project, string body)
    {
        Directory.CreateDirectory(project);
        if (!Directory.Exists(Path.Combine(repo, ".git")))
        {
            await GitAsync(repo, "init", "-q");
        }
        await File.WriteAllTextAsync(Path.Combine(project, "Versioned.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk.Web">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
              </PropertyGroup>
            </Project>
            """);
        await File.WriteAllTextAsync(Path.Combine(project, "Program.cs"), $$"""
            var builder = WebApplication.CreateBuilder(args);
            builder.Logging.ClearProviders();
            var app = builder.Build();
            app.MapGet("/", () => { {{body}} });
            app.Run();
            """);
        await GitAsync(repo, "add", "-A");
        await GitAsync(repo, "-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", body);
        return (await GitAsync(repo, "rev-parse", "HEAD")).Trim();
    }

    /// <summary>Runs git in <paramref name="repo"/>; a failing command fails the test with git's own message.</summary>
    public static async Task<string> GitAsync(string repo, params string[] args)
    {
        var info = new ProcessStartInfo("git") { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = repo };
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        Directory.CreateDirectory(repo);
        using var process = Process.Start(info)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = await process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        Assert.True(process.ExitCode == 0, $"git {string.Join(' ', args)}: {errors}");
        return await output;
    }
}
