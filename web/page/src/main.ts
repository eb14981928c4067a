/**
 * The page, or with `?embed=explain` the explainer alone on a bare page for an <iframe> (which
 * loads none of the page's cards, nor its engine worker).
 */
import './styles/base.css';
import './styles/output.css';
import './styles/panels.css';

const params = new URLSearchParams(location.search);
if (params.get('embed') === 'explain') {
  document.body.replaceChildren();
  document.body.className = 'embed';
  void import('./embed').then((m) => m.startEmbed(params));
} else {
  void import('./page').then((m) => m.startPage(params));
}
