// Français : chaque texte de l'explorateur (mêmes clés et mêmes paramètres que en.mjs).
export default {
};
