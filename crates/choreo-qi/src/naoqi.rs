//! NAOqi module conventions (qi-protocol.md §11) and the catalogue of modules a served robot
//! exposes: every module carries the ALModule base methods at uids 100–112, then its own
//! methods from 113 with the signatures of `naoqi-services.md` (`m` where a parameter takes
//! several shapes or the precise signature is unknown). Overloads are separate entries.

/// The ALModule base methods, uids 100–112: `(name, parameters, return)`.
pub const MODULE_BASE: [(&str, &str, &str); 13] = [
    ("exit", "()", "v"),
    ("__pCall", "(I[m])", "i"),
    ("pCall", "(m)", "m"),
    ("version", "()", "s"),
    ("ping", "()", "b"),
    ("getMethodList", "()", "[s]"),
    ("getMethodHelp", "(s)", "m"),
    ("getModuleHelp", "()", "m"),
    ("wait", "(ii)", "b"),
    ("isRunning", "(i)", "b"),
    ("stop", "(i)", "v"),
    ("getBrokerName", "()", "s"),
    ("getUsage", "(s)", "s"),
];

/// The modules served and their own methods, one `name params return` per line under each
/// module name.
const CATALOGUE: &str = "
ALTextToSpeech
  say (s) v
  say (ss) v
  getLanguage () s
  setLanguage (s) v
  getAvailableLanguages () [s]
  stopAll () v
  setVolume (f) v
  getVolume () f
  setParameter (sf) v
  getParameter (s) f
  resetSpeed () v
  setVoice (s) v
  getVoice () s
  getAvailableVoices () [s]
ALAnimatedSpeech
  say (s) v
  say (sm) v
  setBodyLanguageMode (I) v
  setBodyLanguageModeFromStr (s) v
  getBodyLanguageMode () I
  setBodyTalkEnabled (b) v
  setBodyLanguageEnabled (b) v
ALMemory
  getData (s) m
  getData (si) m
  insertData (si) v
  insertData (sf) v
  insertData (ss) v
  insertData (sm) v
  raiseEvent (sm) v
  raiseMicroEvent (sm) v
  subscribeToEvent (sss) v
  subscribeToEvent (ssss) v
  unsubscribeToEvent (ss) v
  subscribeToMicroEvent (ssss) v
  unsubscribeToMicroEvent (ss) v
  declareEvent (s) v
  declareEvent (ss) v
  removeData (s) v
  getDataList (s) [s]
  getEventList () [s]
  getDataListName () [s]
  getListData (m) m
  getTimestamp (s) m
ALMotion
  wakeUp () v
  rest () v
  rest (s) v
  robotIsWakeUp () b
  setStiffnesses (mm) v
  stiffnessInterpolation (mmm) v
  getStiffnesses (m) [f]
  angleInterpolation (mmmb) v
  angleInterpolationWithSpeed (mmf) v
  angleInterpolationBezier ([s]mm) v
  setAngles (mmf) v
  changeAngles (mmf) v
  getAngles (mb) [f]
  openHand (s) v
  closeHand (s) v
  move (fff) v
  move (fffm) v
  moveToward (fff) v
  moveToward (fffm) v
  moveTo (fff) v
  moveTo (ffff) v
  moveTo (fffm) v
  moveTo (ffffm) v
  moveTo (m) v
  moveTo (mm) v
  stopMove () v
  killMove () v
  killAll () v
  moveInit () v
  waitUntilMoveIsFinished () v
  moveIsActive () b
  getRobotPosition (b) [f]
  getRobotVelocity () [f]
  setMoveArmsEnabled (bb) v
  getMoveArmsEnabled (s) b
  setWalkArmsEnabled (bb) v
  setCollisionProtectionEnabled (sb) b
  getCollisionProtectionEnabled (s) b
  setFallManagerEnabled (b) v
  setBreathEnabled (sb) v
  setIdlePostureEnabled (sb) v
  setMotionConfig (m) v
  getMoveConfig (s) m
  areResourcesAvailable ([s]) b
  killTasksUsingResources ([s]) v
  getLimits (s) m
  getJointNames (s) [s]
  getBodyNames (s) [s]
  getSummary () s
ALNavigation
  moveAlong (m) b
  navigateTo (ff) b
  stopNavigateTo () v
ALRobotPosture
  goToPosture (sf) b
  applyPosture (sf) b
  stopMove () v
  setMaxTryNumber (i) v
  getPosture () s
  getPostureList () [s]
  getPostureFamily () s
  getPostureFamilyList () [s]
ALLeds
  fadeRGB (sffff) v
  fadeRGB (ssf) v
  fadeRGB (sif) v
  fade (sff) v
  on (s) v
  off (s) v
  reset (s) v
  setIntensity (sf) v
  getIntensity (s) m
  rotateEyes (iff) v
  randomEyes (f) v
  rasta (f) v
  fadeListRGB (smm) v
  listGroups () [s]
  listGroup (s) [s]
  listLEDs () [s]
  createGroup (s[s]) v
  earLedsSetAngle (ifb) v
ALAudioPlayer
  playFile (s) v
  playFile (sff) v
  playFileFromPosition (sf) v
  playFileFromPosition (sfff) v
  playFileInLoop (s) v
  playFileInLoop (sff) v
  loadFile (s) i
  unloadFile (i) v
  unloadAllFiles () v
  play (i) v
  play (iff) v
  playInLoop (i) v
  playInLoop (iff) v
  pause (i) v
  goTo (if) v
  stopAll () v
  setVolume (if) v
  getVolume (i) f
  setMasterVolume (f) v
  getMasterVolume () f
  setPanorama (f) v
  getFileLength (i) f
  getCurrentPosition (i) f
ALSpeechRecognition
  setLanguage (s) v
  getLanguage () s
  getAvailableLanguages () [s]
  setVocabulary ([s]b) v
  setWordListAsVocabulary ([s]) v
  subscribe (s) v
  unsubscribe (s) v
  pause (b) v
  pushContexts () v
  popContexts () v
  setVisualExpression (b) v
  setAudioExpression (b) v
  setParameter (sf) v
ALDialog
  setLanguage (s) v
  getLanguage () s
  setConcept (ss[s]) v
  setConcept (ss[s]b) v
  setASRConfidenceThreshold (f) v
  loadTopic (s) s
  loadTopicContent (s) s
  activateTopic (s) v
  deactivateTopic (s) v
  unloadTopic (s) v
  subscribe (s) v
  unsubscribe (s) v
  stopDialog () v
  setFocus (s) v
  gotoTag (ss) v
  forceInput (s) v
  getActivatedTopics () [s]
ALTracker
  registerTarget (sm) v
  unregisterTarget (s) v
  unregisterAllTargets () v
  track (s) v
  stopTracker () v
  setMode (s) v
  setEffector (s) v
  setRelativePosition (m) v
  lookAt ([f]ifb) v
  lookAt ([f]fb) v
  pointAt (s[f]if) v
  pointAt (s[f]f) v
  isActive () b
  isTargetLost () b
  getActiveTarget () s
  getTargetPosition (i) [f]
  setMaximumDistanceDetection (f) v
ALBehaviorManager
  runBehavior (s) v
  startBehavior (s) v
  stopBehavior (s) v
  stopAllBehaviors () v
  isBehaviorRunning (s) b
  isBehaviorInstalled (s) b
  isBehaviorPresent (s) b
  getInstalledBehaviors () [s]
  getRunningBehaviors () [s]
  getBehaviorNames () [s]
  preloadBehavior (s) b
ALFrameManager
  getBehaviorPath (s) s
  exitBehavior (s) v
  getTimelineFps (s) i
  setTimelineFps (si) v
  onPythonError (sss) v
ALChoregraphe
  onPythonError (sss) v
ALBasicAwareness
  setStimulusDetectionEnabled (sb) v
  setEnabled (b) v
  isEnabled () b
  startAwareness () v
  stopAwareness () v
ALAutonomousLife
  setState (s) v
  getState () s
ALFaceDetection
  subscribe (s) v
  unsubscribe (s) v
  setTrackingEnabled (b) v
ALAudioDevice
  setOutputVolume (i) v
  getOutputVolume () i
ALSystem
  robotName () s
  systemVersion () s
ALTabletService
  showWebview (s) b
  showWebview () b
  hideWebview () b
  showImage (s) b
  hideImage () v
";

/// One method of a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleMethod {
    /// Method name.
    pub name: &'static str,
    /// Parameter tuple signature.
    pub params: &'static str,
    /// Return signature.
    pub returns: &'static str,
}

/// The modules of the catalogue with their own methods (without the ALModule base).
pub fn modules() -> Vec<(&'static str, Vec<ModuleMethod>)> {
    let mut out: Vec<(&'static str, Vec<ModuleMethod>)> = Vec::new();
    for line in CATALOGUE.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            out.push((line.trim(), Vec::new()));
            continue;
        }
        let mut parts = line.split_whitespace();
        if let (Some(name), Some(params), Some(returns), Some((_, methods))) =
            (parts.next(), parts.next(), parts.next(), out.last_mut())
        {
            methods.push(ModuleMethod {
                name,
                params,
                returns,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::Signature;

    #[test]
    fn catalogue_signatures_parse() {
        let modules = modules();
        assert!(modules.len() >= 15);
        for (module, methods) in &modules {
            assert!(!methods.is_empty(), "{module}");
            for m in methods {
                assert!(
                    Signature::parse(m.params).is_ok_and(|s| s.fields().is_some()),
                    "{module}.{}",
                    m.name
                );
                assert!(Signature::parse(m.returns).is_ok(), "{module}.{}", m.name);
            }
        }
    }
}
