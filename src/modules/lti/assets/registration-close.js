// Tells the learning platform that registration is over (LTI Dynamic Registration: org.imsglobal.lti.close),
// at once and again from the Finish button (a platform that was not listening yet).
const close = () => (window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');
const button = document.getElementById('lti-close');
if (button) button.addEventListener('click', close);
close();
