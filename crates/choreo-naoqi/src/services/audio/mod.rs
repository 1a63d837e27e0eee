//! NAOqi's audio modules: speaking (ALTextToSpeech, ALAnimatedSpeech), playing sounds
//! (ALAudioPlayer, ALAudioDevice), hearing (ALSpeechRecognition, ALVoiceEmotionAnalysis).

pub(crate) mod animated_speech;
pub(crate) mod device;
pub mod player;
pub(crate) mod recognition;
pub mod tts;
pub(crate) mod voice_emotion;
