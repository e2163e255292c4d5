using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.AspNetCore.Mvc;

namespace PerfLab.Sut.Platform;

/// <summary>TechEmpower-style ceiling endpoints: what Kestrel alone serves on this machine.</summary>
public static class PlatformApi
{
    private static readonly byte[] HelloWorld = "Hello, World!"u8.ToArray();

    public static IEndpointRouteBuilder MapPlatform(this IEndpointRouteBuilder app)
    {
        app.MapGet("/plaintext", () => TypedResults.Bytes(HelloWorld, "text/plain"));
        app.MapGet("/json", () => TypedResults.Json(new JsonMessage("Hello, World!"), PlatformJsonContext.Default.JsonMessage));
        return app;
    }
}

/// <summary>The same two endpoints as an MVC controller (its JSON goes through the active serializer variant).</summary>
[ApiController]
[Route("mvc")]
public sealed class PlatformController : ControllerBase
{
    [HttpGet("plaintext")]
    public ContentResult Plaintext() => Content("Hello, World!", "text/plain");

    [HttpGet("json")]
    public JsonMessage Json() => new("Hello, World!");
}

public sealed record JsonMessage(string Message);

[JsonSerializable(typeof(JsonMessage))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
public sealed partial class PlatformJsonContext : JsonSerializerContext;
